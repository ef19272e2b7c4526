import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

describe("manifests are regular files of bounded size", () => {
  it("a plugin.json linked to /dev/zero, a FIFO .mcp.json, a /dev/zero workflow file and a 2 MiB manifest are refused, naming each file; the rest loads", async () => {
    // A FIFO or /dev/zero read naively would block or fill memory: this command would never return.
    ws = makeWorkspace({ "plugins/good/plugin.json": { name: "good", blocked_tools: ["bash"] } }, { git: true });
    mkdirSync(ws.path("plugins/zero"), { recursive: true });
    symlinkSync("/dev/zero", ws.path("plugins/zero/plugin.json"));
    execFileSync("mkfifo", [ws.path(".mcp.json")]);
    symlinkSync("/dev/zero", ws.path(".claw-workflows.json"));
    ws.write("mcp.json", JSON.stringify({ mcpServers: {}, pad: "x".repeat(2 * 1024 * 1024) }));
    const r = await runKeel(["tools", "--json"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const diags = r.json().diagnostics as { file?: string; message: string }[];
    const about = (rel: string) =>
      diags
        .filter((d) => d.file === ws!.path(rel))
        .map((d) => d.message)
        .join("\n");
    expect(about("plugins/zero/plugin.json")).toMatch(/not a regular file \(a character device\)/);
    expect(about(".mcp.json")).toMatch(/not a regular file \(a FIFO\)/);
    expect(about(".claw-workflows.json")).toMatch(/not a regular file/);
    expect(about("mcp.json")).toMatch(/more than the 1048576 bytes/);
    // the good plugin still loaded
    expect((r.json().tools as { name: string; blocked: boolean }[]).find((t) => t.name === "bash")?.blocked).toBe(true);
  });
});

describe("manifests are of bounded depth", () => {
  it("a plugin whose virtual tool schema nests thousands of levels, and a workflow with such an input, are refused by name; keel run and keel context still work", async () => {
    // Walking such a document recursively (schema compilation, token estimates, printing) overflowed the stack: every keel run failed.
    // JSON text (JSON.stringify of such a value would overflow here too)
    const deep = (n: number, leaf: string) => '{"type":"array","items":'.repeat(n) + leaf + "}".repeat(n);
    ws = makeWorkspace(
      {
        "plugins/deep/plugin.json": `{"name":"deep","virtual_tools":[{"name":"deep_tool","response_template":"x","parameters":{"type":"object","properties":{"a":${deep(20_000, "{}")}}}}]}`,
        "plugins/fine/plugin.json": `{"name":"fine","virtual_tools":[{"name":"fine_tool","response_template":"ok","parameters":{"type":"object","properties":{"a":${deep(10, "{}")}}}}]}`,
        ".claw-workflows.json": `{"workflows":[{"name":"w","steps":[{"tool":"read_file","input":{"path":"x","extra":${deep(20_000, "1")}}}]}]}`,
        "script.json": { turns: [{ text: "still here" }] },
      },
      { git: true },
    );
    const tools = await runKeel(["tools", "--json"], { cwd: ws.root, env: ws.env });
    expect(tools.exitCode, tools.stderr).toBe(0);
    const diags = tools.json().diagnostics as { file?: string; message: string }[];
    const about = (rel: string) =>
      diags
        .filter((d) => d.file === ws!.path(rel))
        .map((d) => d.message)
        .join("\n");
    expect(about("plugins/deep/plugin.json")).toMatch(/more than 64 levels deep/);
    expect(tools.json().tools.map((t: { name: string }) => t.name)).toContain("fine_tool");
    const list = await runKeel(["workflow", "list"], { cwd: ws.root, env: ws.env });
    expect(list.stdout + list.stderr).toMatch(
      /\.claw-workflows\.json: The workflow manifest cannot be used: it nests arrays and objects more than 64 levels deep/,
    );
    const run = await runKeel(["run", "--model", "scripted:script.json", "hello"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("still here");
    expect((await runKeel(["context"], { cwd: ws.root, env: ws.env })).exitCode).toBe(0);
  });

  it("a manifest that is JSON null gets the plain diagnostic of a non-object manifest (the depth check skips it)", async () => {
    ws = makeWorkspace({ "plugins/nul/plugin.json": "null" }, { git: true });
    const r = await runKeel(["tools", "--json"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const messages = (r.json().diagnostics as { file?: string; message: string }[]).filter((d) => d.file === ws!.path("plugins/nul/plugin.json"));
    expect(messages.map((d) => d.message).join("\n")).toMatch(/must be a JSON object \(got null\)/);
  });
});

describe("local MCP resources are bounded too", () => {
  it("a resource path that is a FIFO is refused (not waited on); a regular file reads", async () => {
    ws = makeWorkspace(
      {
        ".mcp.json": {
          resources: [
            { name: "pipe", path: "fifo" },
            { name: "ok", path: "a.txt" },
          ],
        },
        "a.txt": "hi\n",
      },
      { git: true },
    );
    execFileSync("mkfifo", [ws.path("fifo")]);
    const pipe = await runKeel(["--json", "call", "mcp_read_resource", "--input", JSON.stringify({ uri: "pipe" })], { cwd: ws.root, env: ws.env });
    expect(pipe.json()).toMatchObject({ ok: false, code: "execution_failed" });
    expect(pipe.json().content).toContain("not a regular file");
    const ok = await runKeel(["--json", "call", "mcp_read_resource", "--input", JSON.stringify({ uri: "ok" })], { cwd: ws.root, env: ws.env });
    expect(ok.json()).toMatchObject({ ok: true, content: "hi\n" });
  });
});
