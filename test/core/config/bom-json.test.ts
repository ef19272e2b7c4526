import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const BOM = "\ufeff";
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** Writes `text` to `file` as a Windows editor does: UTF-8 with a byte order mark first. */
const withBom = (file: string, text: string) => writeFileSync(file, BOM + text);

describe("JSON files that start with a UTF-8 byte order mark (real CLI)", () => {
  it("keel.config.json, .claude/settings.json, .mcp.json, a workflow manifest and the user config are read as without it", async () => {
    ws = makeWorkspace({ "secret.txt": "s" }, { git: true });
    withBom(ws.path("keel.config.json"), JSON.stringify({ permissions: { deny: ["bash"] } }));
    ws.write(".claude/settings.json", "");
    withBom(ws.path(".claude/settings.json"), JSON.stringify({ permissions: { deny: ["Read(./secret.txt)"] } }));
    withBom(ws.path(".mcp.json"), JSON.stringify({ mcpServers: { notes: { command: "node", args: ["-e", ""] } } }));
    withBom(ws.path(".claw-workflows.json"), JSON.stringify({ workflows: [{ name: "look", steps: [{ tool: "glob", input: { pattern: "*" } }] }] }));
    withBom(join(ws.keelHome, "config.json"), JSON.stringify({ permissions: { deny: ["grep"] } }));
    const keel = (...args: string[]) => runKeel(["--json", ...args], { cwd: ws!.root, env: ws!.env });

    const list = await keel("config", "list");
    expect(list.exitCode, list.stdout + list.stderr).toBe(0);
    const tools = await keel("tools");
    expect(tools.exitCode, tools.stdout).toBe(0);
    expect(tools.json<{ diagnostics: unknown[] }>().diagnostics).toEqual([]);
    for (const [tool, input] of [
      ["bash", { command: "true" }],
      ["read_file", { path: "secret.txt" }],
      ["grep", { pattern: "s" }],
    ] as const) {
      const r = await keel("--yes", "call", tool, "--input", JSON.stringify(input));
      expect(r.json(), tool).toMatchObject({ ok: false, code: "permission_denied" });
    }
    const mcp = await keel("mcp", "list");
    expect(mcp.json<{ servers: { name: string; state: string }[] }>().servers).toMatchObject([{ name: "notes", state: "untrusted" }]);
    const workflows = await keel("workflow", "list");
    expect(workflows.stdout).toContain('"look"');
    // Trust pins the bytes as they are: trusting the files with their marks trusts them; the server is no longer untrusted.
    expect((await runKeel(["trust"], { cwd: ws.root, env: ws.env })).exitCode).toBe(0);
    const trusted = await keel("mcp", "list");
    expect(trusted.json<{ servers: { state: string }[] }>().servers[0]!.state).not.toBe("untrusted");
  });

  it("a syntax error is reported at the line and column the editor shows (the mark is not counted)", async () => {
    ws = makeWorkspace();
    const text = '{\n  "permissions": {\n    "deny": [],\n  }\n}\n'; // a trailing comma
    writeFileSync(ws.path("keel.config.json"), text);
    const plain = await runKeel(["tools"], { cwd: ws.root, env: ws.env });
    withBom(ws.path("keel.config.json"), text);
    const marked = await runKeel(["tools"], { cwd: ws.root, env: ws.env });
    expect(plain.exitCode).toBe(2);
    expect(plain.stderr).toContain("(line 4, column 3)");
    expect(marked.exitCode).toBe(2);
    expect(marked.stderr).toBe(plain.stderr);
  });

  it("keel config set keeps the mark of the file it edits", async () => {
    ws = makeWorkspace();
    withBom(ws.path("keel.config.json"), '{\n  "permissions": { "deny": [] }\n}\n');
    const set = await runKeel(["config", "set", "permissions.deny", '["bash"]', "--source", "project"], { cwd: ws.root, env: ws.env });
    expect(set.exitCode, set.stderr).toBe(0);
    const after = readFileSync(ws.path("keel.config.json"), "utf8");
    expect(after.startsWith(BOM)).toBe(true);
    expect(JSON.parse(after.slice(1))).toEqual({ permissions: { deny: ["bash"] } });
  });
});
