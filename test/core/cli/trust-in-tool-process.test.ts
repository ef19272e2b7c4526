import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { KEEL_BIN, runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { nodeServer } from "../../runtimes/mcp/mcp-test-kit.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const KEEL = `"${process.execPath}" "${KEEL_BIN}"`;
const PROBE = fileURLToPath(new URL("../../runtimes/mcp/fixtures/probe-server.mjs", import.meta.url));

/** A workspace (sandbox off) whose own workflow `mark` has a shell step that writes `marked.txt`: only trust runs it. */
function workspace(): TempWorkspace {
  const w = makeWorkspace({ ".claw-workflows.json": { workflows: [{ name: "mark", steps: [{ run: "echo ran > marked.txt" }] }] } }, { git: true });
  w.writeUserConfig({ sandbox: "off" });
  return w;
}

async function bash(w: TempWorkspace, command: string, env: NodeJS.ProcessEnv = w.env): Promise<string> {
  const r = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command })], { cwd: w.root, env });
  return String(r.json().content);
}

describe("--trust and KEEL_TRUST inside a process keel started for a tool", () => {
  it("are refused (exit 2), saying to run keel trust once in your own terminal; the workspace's workflow does not run", async () => {
    ws = workspace();
    for (const line of [`${KEEL} --trust --yes workflow run mark`, `KEEL_TRUST=1 ${KEEL} --yes workflow run mark`]) {
      const out = await bash(ws, `${line}; echo "exit=$?"`);
      expect(out).toContain("exit=2");
      expect(out).toMatch(/`(--trust|KEEL_TRUST)` was refused/);
      expect(out).toContain("Run `keel trust` once in your own terminal to trust this workspace for good");
      expect(ws.exists("marked.txt")).toBe(false);
    }
    // KEEL_TRUST=0 asks for nothing: not refused (the workflow is refused for trust, exit 1).
    expect(await bash(ws, `KEEL_TRUST=0 ${KEEL} workflow run mark; echo "exit=$?"`)).toContain("exit=1");
  });

  it("your KEEL_TRUST=1 does not reach tool processes: a nested keel in a workflow step of a workspace trusted with keel trust runs", async () => {
    ws = workspace();
    // The nested keel gets no --yes (refused there: see your-terminal-only.test.ts): your allow rule runs its step.
    ws.writeUserConfig({ sandbox: "off", permissions: { allow: ["bash(touch marked.txt)"] } });
    ws.write(".claw-workflows.json", {
      workflows: [
        { name: "mark", steps: [{ run: "touch marked.txt" }] },
        { name: "outer", steps: [{ run: `${KEEL} workflow run mark; echo "inner=$?" > inner.txt` }] },
      ],
    });
    expect((await runKeel(["trust"], { cwd: ws.root, env: ws.env })).exitCode).toBe(0);
    const r = await runKeel(["--yes", "workflow", "run", "outer"], { cwd: ws.root, env: { ...ws.env, KEEL_TRUST: "1" } });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(ws.read("inner.txt")).toBe("inner=0\n");
    expect(ws.exists("marked.txt")).toBe(true);
  });

  it("nor a command hook's: a keel your hook runs under your exported KEEL_TRUST=1 is not refused", async () => {
    ws = workspace();
    const command = `${KEEL} --json tools > /dev/null 2> "${ws.path("hook-err.txt")}"; echo "hook=$?" > "${ws.path("hook.txt")}"`;
    writeFileSync(
      join(ws.keelHome, "config.json"),
      JSON.stringify({ sandbox: "off", hooks: { PreToolUse: [{ matcher: "list_dir", hooks: [{ type: "command", command }] }] } }),
    );
    const r = await runKeel(["--json", "call", "list_dir", "--input", '{"path": "."}'], { cwd: ws.root, env: { ...ws.env, KEEL_TRUST: "1" } });
    expect(r.json(), r.stderr).toMatchObject({ ok: true });
    expect(existsSync(ws.path("hook.txt"))).toBe(true);
    expect(ws.read("hook.txt"), ws.read("hook-err.txt")).toBe("hook=0\n");
  });

  it("keel's messages there suggest nothing a model can run to widen: they say to ask the user to run keel trust", async () => {
    ws = workspace();
    ws.write(".mcp.json", { mcpServers: { probe: nodeServer(PROBE) } });
    ws.write(".claude/settings.json", { hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "true" }] }] } });
    ws.write("keel.config.json", { permissions: { allow: ["bash"] } });
    ws.write("plugins/cp/plugin.json", { name: "cp", main: "index.mjs" });
    ws.write("plugins/cp/index.mjs", "export default {};\n");
    const lines = ["mcp list", "mcp doctor", "--yes workflow run mark", "workflow list", "workflow show mark", "plugins", "doctor", "call list_dir --input {}"];
    // Into a file: the whole of it, not the bash result a long output is cut to.
    await bash(ws, `{ ${lines.map((l) => `${KEEL} ${l}`).join("; ")}; } > "${ws.path("..", "out.txt")}" 2>&1`);
    const out = ws.read("../out.txt");
    expect(out).toContain("not trusted");
    expect(out).toContain("ask the user to run it in their own terminal");
    expect(out).not.toContain("--trust");
    expect(out).not.toContain("KEEL_TRUST");
    // Your own terminal still gets the one-invocation ways.
    const own = await runKeel(["mcp", "list"], { cwd: ws.root, env: ws.env });
    expect(own.stdout).toContain("run with --trust, set KEEL_TRUST=1, or run `keel trust`");
  });
});
