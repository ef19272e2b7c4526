import { afterEach, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import { eventsOfType } from "../../helpers/events.js";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeelProcess } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** A workspace whose user config points at the local server with this idle limit (none: keel's default). */
function workspace(streamIdleTimeoutMs?: number, extra: object = {}): { ws: TempWorkspace; env: NodeJS.ProcessEnv } {
  const w = makeWorkspace({}, { git: true });
  w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY", streamIdleTimeoutMs, ...extra } });
  ws = w;
  return { ws: w, env: { ...w.env, KEEL_TEST_KEY: "k" } };
}

/** The stall error keel shows for an idle limit of `ms`. */
const stallMessage = (ms: number) => `stopped sending: nothing came for ${ms / 1000} s (model.streamIdleTimeoutMs is ${ms})`;

// Real processes: the process must end on its own (a stalled stream, or a timer left behind, would keep it alive).
describe("a model stream that stops sending (real CLI process, real openai client, local server)", () => {
  it("headers, then nothing: the run ends with the stall error (exit 1), recorded as a transient model error", async () => {
    const { ws, env } = workspace(1500, { maxRetries: 0 }); // (retried when allowed: model-retry.test.ts)
    server.push({ stall: "headers" });
    const r = await runKeelProcess(["--json", "run", "--session", "stall-h", "hi"], { cwd: ws.root, env });
    // Old code: the process waited for the body for ever (until the test's safety timeout).
    expect(r.exitCode).toBe(1);
    const out = r.json<{ reason: string; text: string }>();
    expect(out.reason).toBe("error");
    expect(out.text).toContain(stallMessage(1500));
    expect(out.text).toContain('raise "model.streamIdleTimeoutMs"');
    const errors = eventsOfType(readEvents(ws.path(".keel", "sessions", "stall-h", "events.jsonl")), "model_error");
    expect(errors).toEqual([expect.objectContaining({ transient: true, message: expect.stringContaining(stallMessage(1500)) })]);
  });

  it("some chunks, then nothing: the stall error, the partial text is not recorded as an answer, and the session resumes", async () => {
    const { ws, env } = workspace(1500);
    server.push({ text: "PARTIAL-ANSWER-TEXT", stall: "partial" });
    const r = await runKeelProcess(["run", "--session", "stall-p", "hi"], { cwd: ws.root, env });
    expect(r.exitCode).toBe(1);
    // The text streamed as it came; the error follows it.
    expect(r.stdout).toContain("PARTIAL-ANSWER-TEXT");
    expect(r.stderr).toContain(stallMessage(1500));
    const state = await sessionState(ws.root, "stall-p");
    expect(state.messages.filter((m) => m.role === "assistant")).toEqual([]);
    expect(state.lastAnswer).toBeUndefined();
    expect(state.usage.modelCalls).toBe(0);

    server.push({ text: "the whole answer" });
    const again = await runKeelProcess(["--json", "run", "--resume", "stall-p", "go on"], { cwd: ws.root, env });
    expect(again.exitCode).toBe(0);
    expect(again.json<{ reason: string; text: string }>()).toMatchObject({ reason: "answer", text: "the whole answer" });
    const resumed = await sessionState(ws.root, "stall-p");
    expect(resumed.messages.filter((m) => m.role === "assistant").map((m) => m.content)).toEqual(["the whole answer"]);
  });

  it("keep-alive comments for longer than the idle limit keep a thinking model's stream alive; silence after them still ends it", async () => {
    // Idle 3 s; comments every 100 ms for 5 s: a limit over parsed chunks (which never see the comments) would cut both answers off before their text.
    const { ws, env } = workspace(3000);
    server.push({ keepAlive: { everyMs: 100, forMs: 5000 }, text: "thought it through" });
    const r = await runKeelProcess(["--json", "run", "--session", "alive", "hi"], { cwd: ws.root, env });
    expect(r.exitCode).toBe(0);
    expect(r.json<{ reason: string; text: string }>()).toMatchObject({ reason: "answer", text: "thought it through" });

    server.push({ keepAlive: { everyMs: 100, forMs: 5000 }, text: "AFTER-THINKING", stall: "partial" });
    const stalled = await runKeelProcess(["run", "--resume", "alive", "more"], { cwd: ws.root, env });
    // Old code: this run never ended.
    expect(stalled.exitCode).toBe(1);
    expect(stalled.stdout).toContain("AFTER-THINKING");
    expect(stalled.stderr).toContain(stallMessage(3000));
  });

  it("a normal answer, streamed or not, is unaffected, and no timer keeps the process alive after it", async () => {
    // The default limit (300 s): a timer left running would hold the process past the test's safety timeout.
    for (const stream of [true, false]) {
      const { ws, env } = workspace(undefined, { stream });
      server.push({ text: `plain answer ${stream}` });
      const r = await runKeelProcess(["--json", "run", "hi"], { cwd: ws.root, env });
      expect(r.exitCode).toBe(0);
      expect(r.json<{ reason: string; text: string }>()).toMatchObject({ reason: "answer", text: `plain answer ${stream}` });
      ws.cleanup();
    }
  });
});
