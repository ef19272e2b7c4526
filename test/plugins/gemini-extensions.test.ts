import { mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { requestText, startOpenAIServer, type OpenAIServer } from "../helpers/openai-server.js";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { keelJson, writeJson } from "./plugin-test-kit.js";

/**
 * A Gemini CLI extension in the public layout: gemini-extension.json with mcpServers (its own SDK
 * server, `${extensionPath}` and `${/}`), excludeTools, contextFileName, and commands/*.toml. It is
 * linked into the workspace (its server imports the SDK from this repository's node_modules).
 */
const RELEASE_KIT = fileURLToPath(new URL("../fixtures/gemini-extensions/release-kit", import.meta.url));

let ws: TempWorkspace;
let server: OpenAIServer | undefined;
afterEach(async () => {
  ws?.cleanup();
  await server?.close();
  server = undefined;
});

/** A workspace with release-kit installed at `.gemini/extensions/release-kit`. */
function withReleaseKit(files: Record<string, string | object> = {}): TempWorkspace {
  const w = makeWorkspace(files);
  const at = w.path(".gemini", "extensions", "release-kit");
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(RELEASE_KIT, at, "dir");
  return w;
}

describe("Gemini CLI extensions", () => {
  it("keel plugins lists a workspace extension with its MCP server, blocks, context file, TOML commands and diagnostics naming file and field", async () => {
    ws = withReleaseKit();
    const out = (await keelJson(ws, ["plugins"])).json();
    expect(out.failed).toEqual([]);
    const kit = out.plugins.find((p: { name: string }) => p.name === "release-kit");
    const manifest = ws.path(".gemini", "extensions", "release-kit", "gemini-extension.json");
    expect(kit).toMatchObject({ version: "1.4.0", layout: "gemini", level: "project", path: manifest, needsTrust: true });
    expect(kit.contributions).toMatchObject({
      mcpServers: ["notes"],
      blockedTools: ["write_file"],
      blockedCommands: ["rm"],
      contextFiles: [join(ws.path(".gemini", "extensions", "release-kit"), "RELEASING.md")],
    });
    const commands = kit.informational.filter((i: { kind: string }) => i.kind === "command").map((i: { name: string }) => i.name);
    expect(commands).toEqual(["/changelog", "/release:notes"]);
    // `_comment` keys are ignored; web_fetch has no counterpart (info); `settings` is not used (info)
    expect(out.diagnostics.filter((d: { severity: string }) => d.severity !== "info")).toEqual([]);
    expect(out.diagnostics).toContainEqual(expect.objectContaining({ severity: "info", file: manifest, path: "excludeTools[2]" }));
    expect(out.diagnostics).toContainEqual(expect.objectContaining({ severity: "info", file: manifest, path: "settings" }));
  });

  it("its MCP server starts when the workspace is trusted (${extensionPath} expanded), and not before", async () => {
    ws = withReleaseKit();
    const untrusted = (await keelJson(ws, ["tools"])).json();
    expect(untrusted.tools.map((t: { name: string }) => t.name)).not.toContain("mcp__notes__stamp");

    const call = await runKeel(["--trust", "--yes", "--json", "call", "mcp__notes__stamp", "--input", '{"text":"v1.4"}'], { cwd: ws.root, env: ws.env });
    const obs = call.json();
    expect(obs).toMatchObject({ ok: true, code: "ok" });
    expect(obs.content).toContain("stamped: v1.4 (cwd ");
    expect(obs.content).toContain(join("gemini-extensions", "release-kit"));
  });

  it("excludeTools blocks mapped tools and run_shell_command(rm) blocks bash running rm, also untrusted; other commands run", async () => {
    ws = withReleaseKit({ "doomed.txt": "x" });
    const tools = (await keelJson(ws, ["tools"])).json();
    expect(tools.tools.find((t: { name: string }) => t.name === "write_file").blocked).toBe(true);
    expect(tools.tools.find((t: { name: string }) => t.name === "bash").blocked).toBe(false);

    const write = (await keelJson(ws, ["--yes", "call", "write_file", "--input", '{"path":"a.txt","content":"x"}'])).json();
    expect(write).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked" });
    for (const command of ["rm doomed.txt", "echo hi && rm -f doomed.txt"]) {
      const obs = (await keelJson(ws, ["--yes", "call", "bash", "--input", JSON.stringify({ command })])).json();
      expect(obs).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked" });
      expect(obs.content).toContain("run_shell_command(rm)");
    }
    expect(ws.exists("doomed.txt")).toBe(true);
    const echo = (await keelJson(ws, ["--yes", "call", "bash", "--input", '{"command":"echo rmdir-is-not-rm"}'])).json();
    expect(echo).toMatchObject({ ok: true });
  });

  it("its context file is in the system prompt with its source; a user-level extension's default GEMINI.md too", async () => {
    ws = withReleaseKit();
    writeJson(join(ws.keelHome, "extensions", "house-style", "gemini-extension.json"), { name: "house-style", excludeTools: ["replace"] });
    writeJson(join(ws.keelHome, "extensions", "house-style", "GEMINI.md"), "Prefer small functions.");
    const ctx = (await keelJson(ws, ["context"])).json();
    expect(ctx.instructions.files).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: ".gemini/extensions/release-kit/RELEASING.md", level: "workspace", source: "Gemini CLI extension release-kit" }),
        expect.objectContaining({ path: "~keel/extensions/house-style/GEMINI.md", level: "user", source: "Gemini CLI extension house-style" }),
      ]),
    );
    expect(ctx.system.text).toContain("Write release notes in the imperative mood");
    expect(ctx.system.text).toContain("Prefer small functions.");
    // replace → edit_file
    const tools = (await keelJson(ws, ["tools"])).json();
    expect(tools.tools.find((t: { name: string }) => t.name === "edit_file").blocked).toBe(true);
  });

  it("its commands/*.toml are prompt workflows named as in Gemini CLI, and one runs against the model", async () => {
    ws = withReleaseKit();
    const list = await runKeel(["workflow", "list"], { cwd: ws.root, env: ws.env });
    expect(list.stdout).toMatch(/^changelog\s+1\s+plugin:release-kit\s+Draft a changelog entry/m);
    expect(list.stdout).toMatch(/^release:notes\s+1\s+plugin:release-kit\s+Write release notes/m);

    server = await startOpenAIServer([{ text: "done" }]);
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    const run = await runKeel(["--trust", "workflow", "run", "release:notes", "--arg", "arguments=2.0"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(requestText(server.requests[0]!)).toContain("Write the release notes for version 2.0.");
  });
});
