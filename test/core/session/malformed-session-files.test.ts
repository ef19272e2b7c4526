import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { initialState } from "../../../core/session/session-store.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// A repository can commit .keel/sessions/<id>/ holding any JSON. `keel sessions show ID` (which the README says
// to read before `adopt`), `adopt` and a resume check session.json and state.json at the boundary: a file that
// does not hold what keel writes is an error naming the file and the field, never a TypeError; nothing is run or written.

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const META = {
  createdAt: "2026-01-01T00:00:00.000Z",
  depth: 0,
  model: { kind: "scripted", file: "script.json", contextWindow: 128000, maxOutputTokens: 4096 },
  cwd: ".",
  permissions: {},
  plugins: [],
  pluginFingerprint: "x",
  servers: [],
  serverFingerprint: "x",
  toolMenuHash: "x",
};
/** A checkpoint as keel writes one (its id is set per case). */
const STATE = { ...initialState("x", "t"), turn: 1, updatedAt: "2026-01-01T00:00:00.000Z", logOffset: 0 };

/** Committed sessions: what is wrong, the file and the field keel must name. */
const CASES: { id: string; meta?: object; state?: object; log?: object; file: string; field: string }[] = [
  { id: "pending", state: { pending: { turn: 1, calls: 5 } }, file: "state.json", field: "pending.calls" }, // state.pending?.calls.find is not a function
  { id: "pending-kind", state: { pending: 5 }, file: "state.json", field: "pending" },
  { id: "message", state: { messages: [null] }, file: "state.json", field: "messages.0" },
  { id: "calls", state: { messages: [{ role: "assistant", content: "x", toolCalls: 5 }] }, file: "state.json", field: "messages.0.toolCalls" },
  { id: "usage", state: { usage: null }, file: "state.json", field: "usage" },
  { id: "answer", state: { lastAnswer: 5 }, file: "state.json", field: "lastAnswer" }, // text.replace is not a function
  { id: "budgets", state: { budgets: "lots" }, file: "state.json", field: "budgets" },
  { id: "model", meta: { model: null }, file: "session.json", field: "model" }, // Cannot read properties of null (reading 'kind')
  { id: "agent", meta: { agentType: 5 }, file: "session.json", field: "agentType" },
  { id: "worktree", meta: { worktree: "x" }, file: "session.json", field: "worktree" },
  { id: "created", meta: { createdAt: 5 }, file: "session.json", field: "createdAt" },
  // the state its log replays to is checked as the checkpoint is
  { id: "log", log: { ts: 1, type: "session_state", sessionId: "log", set: { usage: null } }, file: "events.jsonl", field: "usage" },
  // a checkpoint naming another session: adopt wrote the checkpoint it loaded into that session's folder
  { id: "other", state: { id: "mine" }, file: "state.json", field: "id" },
  { id: "other-meta", meta: { id: "mine" }, file: "session.json", field: "id" },
];

/** Every file of a folder and its bytes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (e.isFile()) out[join(e.parentPath, e.name)] = readFileSync(join(e.parentPath, e.name), "latin1");
  return out;
}

describe("committed sessions whose session.json or state.json hold other types than keel writes", () => {
  it("show, adopt and resume fail with an error naming the file and the field (exit 1), never a TypeError, and write nothing", async () => {
    const files: Record<string, string | object> = { "script.json": [{ text: "RAN-THE-MODEL" }] };
    for (const c of CASES) {
      files[`.keel/sessions/${c.id}/session.json`] = { ...META, id: c.id, ...c.meta };
      files[`.keel/sessions/${c.id}/state.json`] = { ...STATE, id: c.id, ...c.state };
      if (c.log) files[`.keel/sessions/${c.id}/events.jsonl`] = JSON.stringify(c.log) + "\n";
    }
    ws = makeWorkspace(files, { git: true });
    // a session of the user's own, which a committed one names
    const mine = await runKeel(["run", "--model", "scripted:script.json", "--session", "mine", "hi"], { cwd: ws.root, env: ws.env });
    expect(mine.exitCode, mine.stderr).toBe(0);
    const sessions = ws.path(".keel/sessions");
    const before = snapshot(sessions);
    const keelHome = ws.env.KEEL_HOME!;
    const homeBefore = snapshot(keelHome);

    for (const c of CASES) {
      const file = ws.path(".keel/sessions", c.id, c.file);
      const commands = [
        ["sessions", "show", c.id],
        ["--json", "sessions", "show", c.id],
        ["--yes", "sessions", "adopt", c.id],
        ...(c.file === "session.json" ? [["--yes", "run", "--resume", c.id, "go on"]] : []),
      ];
      for (const args of commands) {
        const r = await runKeel(args, { cwd: ws.root, env: ws.env });
        const what = `${args.join(" ")}: ${r.stdout}${r.stderr}`;
        expect(r.exitCode, what).toBe(1);
        expect(r.stdout + r.stderr, what).toContain(`${file} is not as keel writes it (${c.field}: `);
        expect(r.stdout + r.stderr, what).toContain(`Move the session's folder ${ws.path(".keel/sessions", c.id)} away`);
        expect(r.stdout + r.stderr, what).not.toMatch(/TypeError|Cannot read properties|is not a function|\n\s+at /);
        expect(r.stdout, what).not.toContain("RAN-THE-MODEL");
      }
      // A committed session is not yours: a resume refuses it before reading its state, and runs nothing.
      const resume = await runKeel(["--yes", "run", "--resume", c.id, "go on"], { cwd: ws.root, env: ws.env });
      expect(resume.exitCode).not.toBe(0);
      expect(resume.stdout).not.toContain("RAN-THE-MODEL");
    }
    // nothing written: the sessions' files as committed, and no seal recorded for any of them
    expect(snapshot(sessions)).toEqual(before);
    expect(snapshot(keelHome)).toEqual(homeBefore);
    const show = await runKeel(["sessions", "show", "mine"], { cwd: ws.root, env: ws.env });
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain("RAN-THE-MODEL");
    expect(show.stdout).not.toContain("origin:");
  });

  it("a session of yours whose state.json was overwritten (git pull) is refused on resume naming the field, not run", async () => {
    ws = makeWorkspace({ "script.json": [{ text: "first" }, { text: "RAN-THE-MODEL" }] }, { git: true });
    const run = await runKeel(["run", "--model", "scripted:script.json", "--session", "mine", "hi"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode, run.stderr).toBe(0);
    const state = ws.path(".keel/sessions/mine/state.json");
    const raw = JSON.parse(readFileSync(state, "utf8")) as Record<string, unknown>;
    ws.write(".keel/sessions/mine/state.json", { ...raw, messages: [{ role: "user", content: 5 }] });
    const before = snapshot(ws.path(".keel/sessions/mine"));

    const resume = await runKeel(["--yes", "run", "--model", "scripted:script.json", "--resume", "mine", "go on"], { cwd: ws.root, env: ws.env });
    expect(resume.exitCode).toBe(1);
    expect(resume.stderr).toContain(`${state} is not as keel writes it (messages.0.content: `);
    expect(resume.stdout).not.toContain("RAN-THE-MODEL");
    const show = await runKeel(["sessions", "show", "mine"], { cwd: ws.root, env: ws.env });
    expect(show.exitCode).toBe(1);
    expect(show.stderr).toContain(`${state} is not as keel writes it (messages.0.content: `);
    expect(snapshot(ws.path(".keel/sessions/mine"))).toEqual(before);
  });
});
