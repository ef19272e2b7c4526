import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap).

let ws: TempWorkspace | undefined;
let home: string | undefined;
afterEach(() => {
  ws?.cleanup();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("a sandboxed command cannot read keel's own secrets (real CLI, bwrap)", () => {
  it("the session key and the MCP OAuth tokens read as empty; the rest of $KEEL_HOME stays readable", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" });
    // $KEEL_HOME outside /tmp: the sandbox's private /tmp would hide a home under it whole, and prove nothing.
    home = mkdtempSync("/var/tmp/keel-home-");
    writeFileSync(join(home, "config.json"), JSON.stringify({ sandbox: "workspace-write" }));
    const key = join(home, "session-key");
    writeFileSync(key, "SESSIONKEYSECRET\n", { mode: 0o600 });
    mkdirSync(join(home, "mcp-oauth"), { mode: 0o700 });
    writeFileSync(join(home, "mcp-oauth", "0123.json"), '{"tokens":{"access_token":"TOKENSECRET"}}', { mode: 0o600 });
    writeFileSync(join(home, "notes.txt"), "not a secret\n");
    const command = `cat ${key} ${join(home, "mcp-oauth")}/*.json; ls -A ${join(home, "mcp-oauth")} | wc -l; cat ${join(home, "notes.txt")}`;
    const env = { ...ws.env, KEEL_HOME: home };
    const r = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command })], { cwd: ws.root, env });
    const obs = r.json();
    expect(obs.metadata.sandbox, r.stdout + r.stderr).toBe("workspace-write");
    const out = `${obs.data.stdout}${obs.data.stderr}`;
    expect(out).not.toContain("SESSIONKEYSECRET");
    expect(out).not.toContain("TOKENSECRET");
    expect(obs.data.stdout).toContain("not a secret");
    expect(obs.data.stdout).toMatch(/^0$/m); // the token folder is empty inside the sandbox
    // Nothing was changed outside: the files are as they were.
    expect(readFileSync(key, "utf8")).toBe("SESSIONKEYSECRET\n");
    expect(readFileSync(join(home, "mcp-oauth", "0123.json"), "utf8")).toContain("TOKENSECRET");
  });
});
