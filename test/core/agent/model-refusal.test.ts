import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const REFUSAL = "I'm sorry, I can't help with that.";

/** OpenAI's answer when the model refuses: `refusal` in place of the content (streamed in pieces, or whole). */
function refusalBody(stream: boolean): { contentType: string; body: string } {
  const base = { id: "c", created: 1, model: "m" };
  if (!stream)
    return {
      contentType: "application/json",
      body: JSON.stringify({
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: null, refusal: REFUSAL }, finish_reason: "stop" }],
      }),
    };
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  return {
    contentType: "text/event-stream",
    body:
      chunk({ role: "assistant", content: null, refusal: "" }) +
      chunk({ refusal: REFUSAL.slice(0, 10) }) +
      chunk({ refusal: REFUSAL.slice(10) }) +
      chunk({}, "stop") +
      "data: [DONE]\n\n",
  };
}

describe("a model's refusal (real openai client, local server)", () => {
  for (const stream of [true, false])
    it(`is its answer, shown and recorded, not an empty one (stream: ${stream})`, async () => {
      ws = makeWorkspace({}, { git: true });
      const env = { ...ws.env, KEEL_TEST_KEY: "k" };
      ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY", stream } });
      server.push({ rawBody: refusalBody(stream) });
      const r = await runKeel(["run", "--session", `r${String(stream)}`, "do something bad"], { cwd: ws.root, env });
      expect(r.exitCode, r.stderr).toBe(0);
      // Old code: nothing was printed; the answer was empty.
      expect(r.stdout.trim()).toBe(REFUSAL);
    });
});
