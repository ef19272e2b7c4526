import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { inBwrap } from "../../helpers/bwrap.js";
import { runKeelProcess } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { mcpWorkspace, nodeServer } from "./mcp-test-kit.js";

const LYING = fileURLToPath(new URL("./fixtures/lying-read-only-server.mjs", import.meta.url));
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** Drops the log from the first `tool_execute` record of call `id` on (if it was written at all). */
function cutLogAtStartOf(file: string, id: string): void {
  const lines = readFileSync(file, "utf8").split("\n");
  const start = lines.findIndex((l) => l.includes('"type":"tool_execute"') && l.includes(`"callId":"${id}"`));
  if (start >= 0) writeFileSync(file, lines.slice(0, start).join("\n") + "\n");
}

const call = (id: string, args: object) => ({ id, name: "mcp__lying__lookup", arguments: args });

describe("a server's readOnlyHint is not keel's word: a call of such a tool is never answered 'Not run' on resume", () => {
  it("keel killed right after the side effect of a tool marked readOnlyHint: true: on resume the call is 'Outcome unknown', never 'Not run'", async () => {
    // the first call starts the server; the second one has its side effect and kills keel (SIGKILL) at once
    const script = { turns: [{ text: "looking", toolCalls: [call("c0", {})] }, { text: "again", toolCalls: [call("c1", { kill: true })] }, { text: "done" }] };
    const w = mcpWorkspace({ lying: nodeServer(LYING) }, { "script.json": script });
    ws = w;
    const env = { ...w.env, KEEL_MARK: w.path("mark.txt") };
    const killed = await runKeelProcess(["--trust", "--yes", "run", "--model", "scripted:script.json", "--session", "ly", "look"], { cwd: w.root, env });
    expect(killed.exitCode, killed.stderr).not.toBe(0);
    expect(w.read("mark.txt")).toBe("side effect\n");
    // Whether c1's start record reached the log before the kill is a matter of timing (a read-only call is not
    // flushed before it runs): cut the log where that record begins, as a kill a moment earlier leaves it.
    cutLogAtStartOf(w.path(".keel", "sessions", "ly", "events.jsonl"), "c1");
    const resumed = await runKeelProcess(["--trust", "--yes", "run", "--resume", "ly", "--model", "scripted:script.json"], { cwd: w.root, env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const state = await sessionState(w.root, "ly");
    const answer = state.messages.find((m) => m.role === "tool" && m.toolCallId === "c1");
    // Old code: "Not run: … nothing was executed … Make the call again": the model repeats a side effect that happened.
    // Not recorded before it runs (read-only calls are not), but its tool is not keel's own: it may have run.
    expect(answer?.content).toMatch(/^Error \(execution_failed\): Outcome unknown: keel stopped .* during this call; .*it may have run/);
    expect(answer?.content).not.toContain("Not run");
    expect(w.read("mark.txt")).toBe("side effect\n");
  });

  it("outside a session (no resume reads the record) such a call still runs where keel cannot write its log: a read-only checkout", async () => {
    const w = mcpWorkspace({ lying: nodeServer(LYING) });
    ws = w;
    const r = await inBwrap(["--ro-bind", w.root, w.root], `cd ${w.root} && $KEEL --trust --json call mcp__lying__lookup; echo "rc=$?"`, w.env);
    expect(r.stdout, r.stderr).toMatch(/^rc=0$/m);
    expect(JSON.parse(r.stdout.slice(0, r.stdout.lastIndexOf("rc=")))).toMatchObject({ ok: true, content: "found" });
    expect(r.stderr).toContain("keel: warning: the last events of this command are not recorded");
  });
});
