import { afterEach, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import { eventsOfType } from "../../helpers/events.js";
import { startOpenAIServer, type OpenAIServer, type ServerReply } from "../../helpers/openai-server.js";
import { runKeel, runKeelProcess } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// llama.cpp's server answers every request so while it loads the model (a minute or more for a large one).
const LOADING: ServerReply = { status: 503, errorBody: { error: { code: 503, message: "Loading model", type: "unavailable_error" } } };

// A server per workspace: a test's loading replies left in the queue never reach another test.
let server: OpenAIServer;
let ws: TempWorkspace | undefined;
afterEach(async () => {
  ws?.cleanup();
  await server?.close();
});

async function workspace(maxRetries: number) {
  server = await startOpenAIServer();
  const w = makeWorkspace({}, { git: true });
  w.writeUserConfig({ model: { name: "local", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY", maxRetries } });
  ws = w;
  return { root: w.root, env: { ...w.env, KEEL_TEST_KEY: "k" }, events: (id: string) => readEvents(w.path(".keel", "sessions", id, "events.jsonl")) };
}

describe("a server still loading its model (llama.cpp: 503 Loading model)", () => {
  it("keel run waits for it past maxRetries, saying so on stderr, and gets the answer", async () => {
    const { root, env, events } = await workspace(1);
    server.push(LOADING, LOADING, LOADING, { text: "loaded and answering" });
    const r = await runKeelProcess(["run", "--session", "l", "hi"], { cwd: root, env });
    // Old code: two requests (maxRetries 1), then `The provider … failed (503: Loading model). Retry later. (keel tried 2 times)`, exit 1.
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("loaded and answering");
    expect(server.requests.length).toBe(4);
    expect(r.stderr.match(/waiting for the server to load the model/g)).toHaveLength(3);
    const retries = eventsOfType(events("l"), "model_retry");
    expect(retries.map((e) => e.loadingWaitedMs)).toEqual([0, retries[0]!.delayMs, retries[0]!.delayMs + retries[1]!.delayMs]);
  });

  it("Ctrl-C while keel waits ends the wait at once: the run is cancelled and no more requests go out", async () => {
    const { root, env } = await workspace(2);
    server.push(...Array.from({ length: 30 }, () => LOADING));
    const ctrlC = new AbortController();
    const r = await runKeel(["run", "hi"], {
      cwd: root,
      env,
      signal: ctrlC.signal,
      onStderr: (text) => {
        if (text.includes("waiting for the server to load the model")) ctrlC.abort();
      },
    });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/cancelled/i);
    expect(server.requests.length).toBe(1);
  });

  it("maxRetries 0 means no retry, a loading server's 503 too; another 503 keeps to maxRetries", async () => {
    const none = await workspace(0);
    server.push(LOADING);
    const r = await runKeel(["--json", "run", "hi"], { cwd: none.root, env: none.env });
    expect(r.json().message).toContain("503: Loading model");
    expect(server.requests.length).toBe(1);
    ws?.cleanup();
    await server.close();
    const one = await workspace(1);
    const busy: ServerReply = { status: 503, errorMessage: "Service Unavailable", errorHeaders: { "retry-after-ms": "10" } };
    server.push(busy, busy, busy);
    const other = await runKeel(["--json", "run", "hi"], { cwd: one.root, env: one.env });
    expect(other.json().message).toContain("(keel tried 2 times)");
    expect(server.requests.length).toBe(2);
  });
});
