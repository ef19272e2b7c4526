import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { callTool, createHost, runAgent, UsageError, type Host } from "../../lib/index.js";
import { useOpenAIServer } from "../helpers/openai-server.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { closeAfterEach } from "../helpers/test-host.js";

let ws: TempWorkspace | undefined;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

const server = useOpenAIServer();

/** Polls until `check` holds (generous: up to ~90 s on a loaded machine, within the test's 120 s). */
async function until(check: () => boolean): Promise<void> {
  await vi.waitFor(() => expect(check()).toBe(true), { timeout: 90_000, interval: 50 });
}

describe("host.close() ends what the program still runs on the host", () => {
  it("cancels a turn and a call in flight and waits for them: the session is unlocked and its events written when close resolves; a closed host refuses more", async () => {
    ws = makeWorkspace({});
    server.push({ stall: "headers" }); // the model never answers
    host = await createHost({ cwd: ws.root, env: ws.env, model: { name: "m", baseUrl: server.baseUrl }, yes: true });
    const turn = runAgent(host, "hello", { sessionId: "closing" });
    const call = callTool(host, "bash", { command: "sleep 60" });
    const session = join(ws.root, ".keel", "sessions", "closing");
    await until(() => server.requests.length === 1 && existsSync(join(session, "writer.lock")));

    await host.close();
    // Before: close resolved at once, the turn went on waiting for the model (its lock held), and the command ran on.
    expect(existsSync(join(session, "writer.lock"))).toBe(false);
    const [outcome, observation] = await Promise.all([turn, call]);
    expect(outcome.reason).toBe("cancelled");
    expect(observation).toMatchObject({ ok: false, code: "cancelled" });
    const events = readFileSync(join(session, "events.jsonl"), "utf8");
    expect(events).toMatch(/"type":"turn_end"|"type":"session_end"|"cancelled"/);

    await expect(callTool(host, "read_file", { path: "x" })).rejects.toThrow(UsageError);
    await expect(runAgent(host, "again")).rejects.toThrow(/host is closed: open another with createHost/);
  });

  it("an approver that never answers and ignores its signal does not hold close() up: the call and the turn waiting on it end cancelled, nothing ran", async () => {
    ws = makeWorkspace({});
    // One reply only: the turn ends at the approval, and a reply left queued would answer the next test's turn.
    server.push({ toolCalls: [{ id: "b1", name: "bash", arguments: { command: "touch by-turn.txt" } }] });
    const asked: string[] = [];
    // An embedding program's approver: waits for a person who never comes, and never looks at its signal.
    const approver = (request: { tool: string; input: unknown }) => {
      asked.push(JSON.stringify(request.input));
      return new Promise<"yes">(() => {});
    };
    host = await createHost({ cwd: ws.root, env: ws.env, model: { name: "m", baseUrl: server.baseUrl }, approver });
    const turn = runAgent(host, "make a file", { sessionId: "asking" });
    const call = callTool(host, "bash", { command: "touch by-call.txt" });
    await until(() => asked.length === 2);

    // Before: close() never settled (the pipeline awaited the approver's answer), and neither did the call or the turn.
    await host.close();
    const [outcome, observation] = await Promise.all([turn, call]);
    expect(observation).toMatchObject({ ok: false, code: "cancelled", phase: "permission" });
    expect(outcome.reason).toBe("cancelled");
    expect(existsSync(ws.path("by-call.txt")) || existsSync(ws.path("by-turn.txt"))).toBe(false);
    expect(existsSync(join(ws.root, ".keel", "sessions", "asking", "writer.lock"))).toBe(false);
  });

  it("a second close() made while the first is under way resolves only once the work has ended too", async () => {
    ws = makeWorkspace({});
    server.push({ stall: "headers" }); // the model never answers
    host = await createHost({ cwd: ws.root, env: ws.env, model: { name: "m", baseUrl: server.baseUrl }, yes: true });
    const before = server.requests.length;
    const turn = runAgent(host, "hello", { sessionId: "twice" });
    const lock = join(ws.root, ".keel", "sessions", "twice", "writer.lock");
    await until(() => server.requests.length > before && existsSync(lock));
    const first = host.close();
    // Before: the second call saw the host closed and resolved at once, with the turn still holding its session's lock.
    await host.close();
    expect(existsSync(lock)).toBe(false);
    expect((await turn).reason).toBe("cancelled");
    await first;
  });
});
