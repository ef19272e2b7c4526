import { cpSync, existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { KEEL_BIN, runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { nodeServer } from "../../runtimes/mcp/mcp-test-kit.js";

// Runs the real bubblewrap (`bwrap`) for the sandboxed case, which .ci/run installs (Debian package bubblewrap).

const CHECKOUT = dirname(dirname(KEEL_BIN));
const PROBE = fileURLToPath(new URL("../../runtimes/mcp/fixtures/probe-server.mjs", import.meta.url));
const REFUSED = "Run this in your own terminal: it changes what keel allows.";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/**
 * A copy of the built keel next to the workspace (under /var/tmp), so a sandboxed command sees it wherever the
 * checkout is (CI clones under /tmp, which the sandbox replaces): its bundle, with node_modules linked.
 */
function keelCopy(w: TempWorkspace): string {
  const dir = join(dirname(w.root), "keel-copy");
  mkdirSync(join(dir, "bin"), { recursive: true });
  cpSync(KEEL_BIN, join(dir, "bin", "keel.js"));
  cpSync(join(CHECKOUT, "package.json"), join(dir, "package.json"));
  cpSync(join(CHECKOUT, "dist", "cli"), join(dir, "dist", "cli"), { recursive: true });
  // bin/keel.js runs the bundle when it is not older than the tsc output, which it requires to exist.
  mkdirSync(join(dir, "dist", "bin"), { recursive: true });
  writeFileSync(join(dir, "dist", "bin", "cli.js"), "");
  utimesSync(join(dir, "dist", "bin", "cli.js"), 0, 0);
  symlinkSync(join(CHECKOUT, "node_modules"), join(dir, "node_modules"));
  return join(dir, "bin", "keel.js");
}

async function bash(w: TempWorkspace, command: string): Promise<{ content: string; metadata: Record<string, unknown> }> {
  const r = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command })], { cwd: w.root, env: w.env });
  return r.json();
}

describe("keel trust and keel config confirm-local inside a process keel started for a tool", () => {
  for (const sandbox of ["off", "workspace-write"] as const) {
    it(`are refused, saying to run them in your own terminal (sandbox ${sandbox})`, async () => {
      ws = makeWorkspace({ ".mcp.json": { mcpServers: { probe: nodeServer(PROBE) } } }, { git: true, under: "/var/tmp" });
      ws.writeUserConfig({ sandbox });
      const keel = keelCopy(ws);
      for (const args of ["trust", "trust --revoke", "config confirm-local"]) {
        const obs = await bash(ws, `"${process.execPath}" "${keel}" ${args}; echo "exit=$?"`);
        expect(obs.metadata.sandbox ?? "off", obs.content).toBe(sandbox === "off" ? "off" : "workspace-write");
        expect(obs.content).toContain(`\`keel ${args}\` did not run`);
        expect(obs.content).toContain(REFUSED);
        expect(obs.content).toContain("exit=2");
      }
      expect(existsSync(join(ws.keelHome, "trust.json"))).toBe(false);
      // Not a boundary: a command that clears the mark runs it (unsandboxed; the sandbox keeps $KEEL_HOME read-only).
      const cleared = await bash(ws, `env -u KEEL_CALL "${process.execPath}" "${keel}" trust; echo "exit=$?"`);
      if (sandbox === "off") {
        expect(cleared.content).toContain("exit=0");
        expect(existsSync(join(ws.keelHome, "trust.json"))).toBe(true);
      } else expect(existsSync(join(ws.keelHome, "trust.json"))).toBe(false);
    });
  }

  it("keel config set and --show-secrets there are not your own command line: no user config write, no secrets, no approval", async () => {
    ws = makeWorkspace({}, { git: true, under: "/var/tmp" });
    ws.writeUserConfig({ sandbox: "off", mcp: { headers: { Authorization: "Bearer s3cr3t-t0ken-value" } } });
    const keel = keelCopy(ws);
    const set = await bash(ws, `"${process.execPath}" "${keel}" config set permissions.allow '["bash(*)"]' --source user; echo "exit=$?"`);
    // Typed there, the command is no approval of its own (see below): it stops at approval; nothing is written.
    expect(set.content).toContain("Approval required to run config_set");
    expect(set.content).toContain("exit=1");
    expect(ws.read("../keel-home/config.json")).not.toContain("bash(*)");
    const list = await bash(ws, `"${process.execPath}" "${keel}" config list --show-secrets; echo "exit=$?"`);
    expect(list.content).toContain("shows secret-looking values only to the user's own command line");
    expect(list.content).not.toContain("s3cr3t-t0ken-value");
    // From your own terminal, as before.
    const own = await runKeel(["config", "set", "permissions.allow", '["bash(git *)"]', "--source", "user"], { cwd: ws.root, env: ws.env });
    expect(own.exitCode, own.stderr).toBe(0);
  });

  it("keel sessions approve, reject and adopt and keel mcp login are refused there too: an approval and your account are yours", async () => {
    ws = makeWorkspace({}, { git: true, under: "/var/tmp" });
    ws.writeUserConfig({ sandbox: "off" });
    const keel = keelCopy(ws);
    for (const args of ["sessions approve s1", "sessions reject s1", "sessions adopt s1", "mcp login probe"]) {
      const obs = await bash(ws, `"${process.execPath}" "${keel}" ${args}; echo "exit=$?"`);
      const command = args.split(" ").slice(0, -1).join(" ");
      expect(obs.content).toContain(`\`keel ${command}\` did not run`);
      expect(obs.content).toContain(REFUSED);
      expect(obs.content).toContain("exit=2");
    }
  });

  for (const sandbox of ["off", "workspace-write"] as const) {
    it(`--yes is refused there, so a nested keel cannot approve what the session asks about; without it the model is told to stop (sandbox ${sandbox})`, async () => {
      ws = makeWorkspace({}, { git: true, under: "/var/tmp" });
      // Your deny rule, and write_file asking by default: the nested keel reads the same config.
      ws.writeUserConfig({ sandbox, permissions: { deny: ["write_file(secret.txt)"] } });
      const keel = keelCopy(ws);
      const input = (path: string) => `'${JSON.stringify({ path, content: "x" })}'`;
      for (const line of [`--yes call write_file --input ${input("a.txt")}`, `--yes --json run --model scripted:none.json hi`]) {
        const obs = await bash(ws, `"${process.execPath}" "${keel}" ${line}; echo "exit=$?"`);
        expect(obs.content).toContain("`--yes` was refused");
        expect(obs.content).toContain("exit=2");
      }
      expect(ws.exists("a.txt")).toBe(false);
      // In the sandbox a nested keel does not get that far: your $KEEL_HOME/config.json is hidden from it (/dev/null).
      if (sandbox !== "off") return;
      // Without --yes the call stops at approval, and what the model reads names no way to approve it itself.
      const asked = await bash(ws, `"${process.execPath}" "${keel}" call write_file --input ${input("a.txt")}; echo "exit=$?"`);
      expect(asked.content).toContain("Approval required to run write_file");
      expect(asked.content).toContain("Approving it is the user's decision, not yours");
      expect(asked.content).not.toMatch(/--yes|allow rule|keel trust|config\.json/);
      expect(ws.exists("a.txt")).toBe(false);
      // The deny rule holds as before.
      const denied = await bash(ws, `"${process.execPath}" "${keel}" call write_file --input ${input("secret.txt")}; echo "exit=$?"`);
      expect(denied.content).toContain("permission_denied");
      expect(ws.exists("secret.txt")).toBe(false);
    });
  }

  it("a runtime command (keel task add) typed there is no approval: it asks, while typed in your terminal it is one", async () => {
    ws = makeWorkspace({}, { git: true, under: "/var/tmp" });
    ws.writeUserConfig({ sandbox: "off" });
    const keel = keelCopy(ws);
    const obs = await bash(ws, `"${process.execPath}" "${keel}" task add "from the model"; echo "exit=$?"`);
    expect(obs.content).toContain("Approval required to run task_create");
    expect(obs.content).toContain("exit=1");
    expect(ws.exists(".keel/state/tasks.json") && ws.read(".keel/state/tasks.json").includes("from the model")).toBe(false);
    const own = await runKeel(["task", "add", "from you"], { cwd: ws.root, env: ws.env });
    expect(own.exitCode, own.stderr).toBe(0);
  });

  it("your own terminal's --yes and approval advice are as before", async () => {
    ws = makeWorkspace({}, { git: true });
    const asked = await runKeel(["--json", "call", "write_file", "--input", '{"path":"a.txt","content":"x"}'], { cwd: ws.root, env: ws.env });
    expect(asked.json().content).toContain("Re-run with --yes");
    const yes = await runKeel(["--yes", "--json", "call", "write_file", "--input", '{"path":"a.txt","content":"x"}'], { cwd: ws.root, env: ws.env });
    expect(yes.json().ok, yes.stdout).toBe(true);
  });

  it("your own terminal runs them as before", async () => {
    ws = makeWorkspace({}, { git: true });
    const r = await runKeel(["trust"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(join(ws.keelHome, "trust.json"))).toBe(true);
    const c = await runKeel(["config", "confirm-local"], { cwd: ws.root, env: ws.env });
    expect(c.exitCode, c.stderr).toBe(0);
  });

  it("an MCP stdio server's processes carry the mark too, as a bash call's and a hook's do", async () => {
    ws = makeWorkspace({});
    writeFileSync(join(ws.keelHome, "mcp.json"), JSON.stringify({ mcpServers: { probe: nodeServer(PROBE) } }));
    const r = await runKeel(["--yes", "--json", "call", "mcp__probe__env", "--input", '{"name":"KEEL_CALL"}'], { cwd: ws.root, env: ws.env });
    expect(r.json().content, r.stderr).toMatch(/^[0-9a-f]{24}$/);
  });
});
