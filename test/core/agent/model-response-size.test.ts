import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** An event stream of `n` chunks, each with `delta` (what a server that ignores max_tokens sends). */
function eventStream(n: number, delta: object): string {
  const chunk = JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta }] });
  return `data: ${chunk}\n\n`.repeat(n) + "data: [DONE]\n\n";
}

describe("a streamed answer far past the output limit (real openai client, local server)", () => {
  for (const [what, delta] of [
    ["text", { content: "x".repeat(2 ** 20) }],
    ["tool-call arguments", { tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "read_file", arguments: " ".repeat(2 ** 20) } }] }],
  ] as const)
    it(`keel stops reading it and the turn ends with an error that says why (${what})`, async () => {
      ws = makeWorkspace({}, { git: true });
      const env = { ...ws.env, KEEL_TEST_KEY: "k" };
      ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY", maxOutputTokens: 1000 } });
      // 6 MiB for an answer limited to 1000 tokens (keel reads at most 4 Mi characters of it)
      server.push({ rawBody: { contentType: "text/event-stream", body: eventStream(6, delta) } });
      const r = await runKeel(["--json", "run", "--session", "big", "hi"], { cwd: ws.root, env });
      const out = JSON.parse(r.stdout) as { reason: string; text: string };
      // Old code: the whole 6 MiB answer was kept (and the text one recorded as the answer).
      expect(out.reason).toBe("error");
      expect(out.text).toContain(`streamed more than ${4 * 2 ** 20} characters for one answer, far past its limit of 1000 output tokens`);
    });

  it("a whole answer (stream: false) of more than 8 bytes per character of that limit is not read to its end", async () => {
    ws = makeWorkspace({}, { git: true });
    const env = { ...ws.env, KEEL_TEST_KEY: "k" };
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY", maxOutputTokens: 1000, stream: false } });
    const message = { role: "assistant", content: "x".repeat(40 * 2 ** 20) };
    const body = JSON.stringify({ id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message, finish_reason: "stop" }] });
    server.push({ rawBody: { contentType: "application/json", body } });
    const r = await runKeel(["--json", "run", "--session", "whole", "hi"], { cwd: ws.root, env });
    const out = JSON.parse(r.stdout) as { reason: string; text: string };
    // Old code: all 40 MiB were read, parsed and kept as the answer.
    expect(out.reason).toBe("error");
    expect(out.text).toContain(`sent a response of more than ${32 * 2 ** 20} bytes, far past its limit of 1000 output tokens`);
  });
});
