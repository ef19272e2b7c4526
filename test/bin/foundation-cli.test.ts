import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readEvents } from "../../core/events.js";
import { runKeel, ttyInput } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { eventsOfCall, eventsOfType } from "../helpers/events.js";

const BUILTINS = ["bash", "edit_file", "glob", "grep", "list_dir", "read_file", "write_file"];

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

const keel = (...args: string[]) => runKeel(args, { cwd: ws.root, env: ws.env });

/** Event types logged for one call, in order. */
function phasesOf(callId: string): string[] {
  return eventsOfCall(readEvents(ws.path(".keel", "events.jsonl")), callId).map((e) => e.type);
}

describe("keel tools", () => {
  it("lists every built-in with its input schema and source.kind builtin", async () => {
    ws = makeWorkspace();
    const r = await keel("tools", "--json");
    expect(r.exitCode).toBe(0);
    const { tools, diagnostics } = r.json<{ tools: any[]; diagnostics: unknown[] }>();
    expect(Array.isArray(diagnostics)).toBe(true);
    const builtins = tools.filter((t) => t.source.kind === "builtin").map((t) => t.name);
    expect(builtins).toEqual(expect.arrayContaining(BUILTINS));
    for (const t of tools.filter((x) => BUILTINS.includes(x.name))) {
      expect(t.inputSchema.type).toBe("object");
      expect(Object.keys(t.inputSchema.properties).length).toBeGreaterThan(0);
      expect(t.blocked).toBe(false);
    }
    const bash = tools.find((t) => t.name === "bash");
    expect(bash.inputSchema.required).toEqual(["command"]);
    const human = await keel("tools");
    expect(human.exitCode).toBe(0);
    for (const name of BUILTINS) expect(human.stdout).toContain(name);
  });

  it("the RISK column is never blank: mcp_call_tool, which has no risk of its own, shows -", async () => {
    ws = makeWorkspace({ ".mcp.json": { resources: [{ name: "note", text: "hi" }] } });
    const human = await keel("tools");
    const row = human.stdout.split("\n").find((l) => l.startsWith("mcp_call_tool "))!;
    expect(row.split(/\s{2,}/)).toEqual(["mcp_call_tool", "runtime:mcp", "-", expect.stringContaining("Call a tool")]);
  });
});

describe("keel call read_file", () => {
  it("reads a file (exit 0) and logs every phase in three lines", async () => {
    ws = makeWorkspace({ "README.md": "# hello keel\n" });
    const r = await keel("call", "read_file", "--input", '{"path":"README.md"}', "--json");
    expect(r.exitCode).toBe(0);
    const obs = r.json();
    expect(obs).toMatchObject({ ok: true, tool: "read_file", phase: "done", code: "ok", content: "# hello keel\n", truncated: false });
    const lines = eventsOfCall(readEvents(ws.path(".keel", "events.jsonl")), obs.metadata.callId);
    expect(lines.map((e) => e.type)).toEqual(["tool_intent", "tool_execute", "tool_observation"]);
    expect(lines[1]).toMatchObject({ steps: ["lookup", "visibility", "validate", "hook", "permission"], resolvedTool: "read_file", action: "allow" });
    expect(lines[2]).toMatchObject({ ok: true, phase: "done", code: "ok", steps: ["execute", "normalize", "truncate"], chars: 13 });
  });

  it("rejects {path: 5} with schema_invalid naming path, exit 1", async () => {
    ws = makeWorkspace();
    const r = await keel("call", "read_file", "--input", '{"path":5}', "--json");
    expect(r.exitCode).toBe(1);
    const obs = r.json();
    expect(obs).toMatchObject({ ok: false, phase: "validate", code: "schema_invalid" });
    expect(obs.content).toContain("`path` must be string");
    expect(phasesOf(obs.metadata.callId)).toEqual(["tool_intent", "tool_validate", "tool_observation"]);
  });

  it("refuses ../outside.txt and a symlink leaving the workspace before reading", async () => {
    ws = makeWorkspace();
    const outside = join(ws.root, "..", "outside.txt");
    writeFileSync(outside, "secret outside\n");
    symlinkSync(outside, ws.path("link.txt"));
    for (const path of ["../outside.txt", "link.txt", outside]) {
      const r = await keel("call", "read_file", "--input", JSON.stringify({ path }), "--json");
      expect(r.exitCode).toBe(1);
      const obs = r.json();
      expect(obs).toMatchObject({ ok: false, code: "permission_denied" });
      expect(obs.content).not.toContain("secret outside");
      expect(obs.content).toMatch(/outside the workspace/);
      // the refusal happened before any read: no baseline was recorded for the target
      const baselines = ws.exists(".keel/state/read-baselines.json") ? ws.read(".keel/state/read-baselines.json") : "";
      expect(baselines).not.toContain("outside.txt");
    }
  });

  it("reports an unknown tool", async () => {
    ws = makeWorkspace();
    const r = await keel("call", "nope", "--json");
    expect(r.exitCode).toBe(1);
    const obs = r.json();
    expect(obs).toMatchObject({ ok: false, phase: "lookup", code: "unknown_tool" });
    expect(phasesOf(obs.metadata.callId)).toEqual(["tool_intent", "tool_lookup", "tool_observation"]);
  });
});

describe("keel call bash: permissions", () => {
  it("needs approval without --yes (stdin not a TTY) and runs nothing", async () => {
    ws = makeWorkspace();
    const r = await keel("call", "bash", "--input", '{"command":"echo hi > f.txt"}', "--json");
    expect(r.exitCode).toBe(1);
    const obs = r.json();
    expect(obs).toMatchObject({ ok: false, phase: "permission", code: "approval_required" });
    expect(ws.exists("f.txt")).toBe(false);
    expect(phasesOf(obs.metadata.callId)).toEqual(["tool_intent", "tool_permission", "tool_observation"]);
  });

  it("runs with --yes", async () => {
    ws = makeWorkspace();
    const r = await keel("--yes", "call", "bash", "--input", '{"command":"echo hi > f.txt && echo done"}', "--json");
    expect(r.exitCode).toBe(0);
    const obs = r.json();
    expect(obs).toMatchObject({ ok: true, phase: "done", code: "ok", data: { exitCode: 0, stdout: "done", timedOut: false } });
    expect(ws.read("f.txt")).toBe("hi\n");
    const events = eventsOfCall(readEvents(ws.path(".keel", "events.jsonl")), obs.metadata.callId);
    expect(events.map((e) => e.type)).toEqual(["tool_intent", "tool_execute", "tool_observation"]);
    expect(events[1]).toMatchObject({ type: "tool_execute", action: "ask", approvedBy: "--yes" });
  });

  it("on a terminal: 'y' runs the call; Ctrl-C at the prompt cancels it (code cancelled, not user_denied) and runs nothing", async () => {
    ws = makeWorkspace();
    const answer = async (keys: string, command: string) => {
      const terminal = ttyInput();
      let prompt = false;
      const run = runKeel(["--json", "call", "bash", "--input", JSON.stringify({ command })], {
        cwd: ws.root,
        env: ws.env,
        terminal,
        onStderr: (t) => (prompt = t.includes("Allow?")),
      });
      await vi.waitFor(() => expect(prompt).toBe(true), { timeout: 60_000, interval: 5 });
      terminal.write(keys);
      return run;
    };
    const yes = await answer("y\n", "echo hi > yes.txt");
    expect(yes.json()).toMatchObject({ ok: true, code: "ok" });
    expect(ws.exists("yes.txt")).toBe(true);
    const cancelled = await answer("\u0003", "echo hi > no.txt");
    expect(cancelled.exitCode).toBe(1);
    expect(cancelled.json()).toMatchObject({ ok: false, phase: "permission", code: "cancelled" });
    expect(ws.exists("no.txt")).toBe(false);
    const logged = eventsOfCall(readEvents(ws.path(".keel", "events.jsonl")), cancelled.json().metadata.callId);
    expect(logged.find((e) => e.type === "tool_permission")).toMatchObject({ action: "ask", outcome: "cancelled" });
  });

  it("is denied by a deny rule even with --yes", async () => {
    ws = makeWorkspace({ "keel.config.json": { permissions: { deny: ["bash"] } } });
    const r = await keel("--yes", "call", "bash", "--input", '{"command":"echo hi > f.txt"}', "--json");
    expect(r.exitCode).toBe(1);
    const obs = r.json();
    expect(obs).toMatchObject({ ok: false, phase: "permission", code: "permission_denied", metadata: { rule: "bash" } });
    expect(ws.exists("f.txt")).toBe(false);
  });

  it("reports a non-zero exit as an execution_failed observation with the exit code", async () => {
    ws = makeWorkspace();
    const r = await keel("--yes", "call", "bash", "--input", '{"command":"echo out; echo err >&2; exit 3"}', "--json");
    expect(r.exitCode).toBe(1);
    const obs = r.json();
    expect(obs).toMatchObject({ ok: false, phase: "execute", code: "execution_failed", data: { exitCode: 3, stdout: "out", stderr: "err", timedOut: false } });
    expect(obs.content).toContain("[exit code 3]");
  });
});

describe("output truncation", () => {
  it("truncates 1 MB of output, keeps the full text as an artifact and says so", async () => {
    ws = makeWorkspace();
    const command = `node -e "for (let i = 0; i < 10000; i++) console.log(String(i).padStart(6, '0') + ' ' + 'x'.repeat(92))"`;
    const r = await keel("--yes", "call", "bash", "--input", JSON.stringify({ command }), "--json");
    expect(r.exitCode).toBe(0);
    const obs = r.json();
    expect(obs.truncated).toBe(true);
    expect(obs.content.length).toBeLessThan(40_000);
    expect(obs.content).toContain("000000 x"); // head kept
    expect(obs.content).toContain("009999 x"); // tail kept
    expect(obs.content).toMatch(/characters truncated/);
    const artifact = obs.artifacts.find((a: { kind: string }) => a.kind === "full-output");
    expect(obs.content).toContain(artifact.path);
    const full = readFileSync(ws.path(artifact.path), "utf8");
    expect(full.split("\n").filter((l) => / x{92}$/.test(l))).toHaveLength(10_000);
    expect(full.length).toBeGreaterThanOrEqual(1_000_000);
    const observed = eventsOfType(eventsOfCall(readEvents(ws.path(".keel", "events.jsonl")), obs.metadata.callId), "tool_observation")[0];
    expect(observed).toMatchObject({ steps: ["execute", "normalize", "truncate"], truncated: true, artifacts: 1, chars: obs.content.length });
  });
});

describe("edit_file from the CLI", () => {
  it("refuses an edit without a read, then works after read_file in an earlier process", async () => {
    ws = makeWorkspace({ "src/a.txt": "alpha\nbeta\n" });
    const before = await keel("--yes", "call", "edit_file", "--input", '{"path":"src/a.txt","old_string":"beta","new_string":"gamma"}', "--json");
    expect(before.exitCode).toBe(1);
    const obs = before.json();
    expect(obs).toMatchObject({ ok: false, phase: "execute", code: "precondition_failed" });
    expect(obs.content).toMatch(/read_file/);
    expect(ws.read("src/a.txt")).toBe("alpha\nbeta\n");
    expect(phasesOf(obs.metadata.callId)).toContain("tool_execute");

    expect((await keel("call", "read_file", "--input", '{"path":"src/a.txt"}')).exitCode).toBe(0);
    const edit = await keel("--yes", "call", "edit_file", "--input", '{"path":"src/a.txt","old_string":"beta","new_string":"gamma"}', "--json");
    expect(edit.json()).toMatchObject({ ok: true, code: "ok", data: { replacements: 1 } });
    expect(ws.read("src/a.txt")).toBe("alpha\ngamma\n");

    // the edit refreshed the baseline, so a second edit in a third process works too
    const again = await keel("--yes", "call", "edit_file", "--input", '{"path":"src/a.txt","old_string":"alpha","new_string":"omega"}', "--json");
    expect(again.json()).toMatchObject({ ok: true });
    expect(ws.read("src/a.txt")).toBe("omega\ngamma\n");

    // an outside change invalidates the baseline
    writeFileSync(ws.path("src/a.txt"), "omega\ngamma\nchanged\n");
    const stale = await keel("--yes", "call", "edit_file", "--input", '{"path":"src/a.txt","old_string":"gamma","new_string":"x"}', "--json");
    expect(stale.json()).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(stale.json().content).toMatch(/changed since it was last read/);
  });

  it("names the count of an ambiguous old_string", async () => {
    ws = makeWorkspace({ "a.txt": "x = 1\nx = 1\nx = 1\n" });
    await keel("call", "read_file", "--input", '{"path":"a.txt"}');
    const r = await keel("--yes", "call", "edit_file", "--input", '{"path":"a.txt","old_string":"x = 1","new_string":"x = 2"}', "--json");
    expect(r.exitCode).toBe(1);
    const obs = r.json();
    expect(obs.content).toMatch(/occurs 3 times/);
    expect(obs.metadata.occurrences).toBe(3);
    expect(ws.read("a.txt")).toBe("x = 1\nx = 1\nx = 1\n");
  });
});

describe("keel call --input-file and keel trust", () => {
  it("reads the input from a file, and records and revokes trust in KEEL_HOME", async () => {
    ws = makeWorkspace({ "notes.txt": "from a file\n", "input.json": { path: "notes.txt" } });
    const r = await keel("call", "read_file", "--input-file", "input.json", "--json");
    expect(r.json()).toMatchObject({ ok: true, content: "from a file\n" });
    const trust = await keel("trust", "--json");
    expect(trust.json()).toEqual({ workspace: ws.root, trusted: true, approved: [] });
    expect(readFileSync(join(ws.keelHome, "trust.json"), "utf8")).toContain(ws.root);
    const revoke = await keel("trust", "--revoke", "--json");
    expect(revoke.json()).toEqual({ workspace: ws.root, trusted: false });
    expect(readFileSync(join(ws.keelHome, "trust.json"), "utf8")).not.toContain(ws.root);
    // a second revoke says there was nothing to revoke instead of claiming it revoked something
    const again = await keel("trust", "--revoke");
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain("was not trusted");
    expect(again.stdout).not.toContain("Trust revoked");
  });
});

describe("config errors", () => {
  it("an invalid permission rule exits 2 naming the file and the field", async () => {
    ws = makeWorkspace({ "keel.config.json": { permissions: { deny: ["bash(git status"] } } });
    const r = await keel("call", "read_file", "--input", '{"path":"keel.config.json"}');
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(ws.path("keel.config.json"));
    expect(r.stderr).toContain("permissions.deny.0");
    const tools = await keel("tools", "--json");
    expect(tools.exitCode).toBe(2);
    expect(tools.json().error.message).toContain("permissions.deny.0");
  });

  it("an unparseable --input is a usage error (exit 2)", async () => {
    ws = makeWorkspace();
    const r = await keel("call", "read_file", "--input", "{path:");
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/not valid JSON/);
    expect(existsSync(ws.path(".keel", "events.jsonl"))).toBe(false);
  });
});
