import { symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Runs the real bubblewrap (`bwrap`) for the sandboxed case, which .ci/run installs (Debian package bubblewrap).

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const DENIED = "your user-level folder";

describe("$KEEL_HOME is never written by a tool, where the workspace holds it or lies in it", () => {
  it("a model's write_file into a $KEEL_HOME inside the workspace (trust records, a user plugin's code) is denied, whatever allow rules say", async () => {
    ws = makeWorkspace({}, { git: true });
    const home = ws.path("kh");
    const env = { ...ws.env, KEEL_HOME: home };
    ws.write("kh/config.json", { sandbox: "off", permissions: { allow: ["write_file"] } });
    symlinkSync("kh", ws.path("lnk"));
    const trust = JSON.stringify({ trusted: [{ root: ws.root, at: new Date().toISOString() }] });
    const calls = [
      { path: "kh/trust.json", content: trust },
      { path: "kh/plugins/p/index.mjs", content: "export default {};\n" },
      { path: "lnk/agents/a.md", content: "x\n" },
      { path: "notes.txt", content: "fine\n" },
    ].map((args, i) => ({ id: `c${i}`, name: "write_file", arguments: args }));
    ws.write("script.json", { turns: [{ toolCalls: calls }, { text: "done" }] });
    const r = await runKeel(["run", "--model", "scripted:script.json", "--session", "s1", "go"], { cwd: ws.root, env });
    expect(r.exitCode, r.stderr).toBe(0);
    const results = (await sessionState(ws.root, "s1")).messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    for (const text of results.slice(0, 3)) expect(text).toContain(DENIED);
    expect(results[3]).toContain("Created notes.txt");
    for (const rel of ["kh/trust.json", "kh/plugins", "kh/agents"]) expect(ws.exists(rel)).toBe(false);
    // Nor with --yes, nor edit_file.
    writeFileSync(join(home, "trust.json"), '{"trusted": []}\n');
    const edit = await runKeel(
      ["--yes", "--json", "call", "edit_file", "--input", JSON.stringify({ path: "kh/trust.json", old_string: "[]", new_string: "[1]" })],
      { cwd: ws.root, env },
    );
    expect(edit.json().content).toContain(DENIED);
    expect(ws.read("kh/trust.json")).toBe('{"trusted": []}\n');
  });

  it("a sandboxed command in a workspace inside $KEEL_HOME (a user plugin worked on in place) is not run", async () => {
    ws = makeWorkspace({}, { git: true, under: "/var/tmp" });
    // $KEEL_HOME is the folder holding the workspace.
    const home = dirname(ws.root);
    writeFileSync(join(home, "config.json"), JSON.stringify({ sandbox: "workspace-write" }));
    const env = { ...ws.env, KEEL_HOME: home };
    const r = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: "echo x > index.mjs" })], { cwd: ws.root, env });
    expect(r.json()).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(r.json().content).toContain("lies inside $KEEL_HOME");
    expect(ws.exists("index.mjs")).toBe(false);
    const write = await runKeel(["--yes", "--json", "call", "write_file", "--input", JSON.stringify({ path: "index.mjs", content: "x" })], {
      cwd: ws.root,
      env,
    });
    expect(write.json().content).toContain(DENIED);
    expect(ws.exists("index.mjs")).toBe(false);
  });
});
