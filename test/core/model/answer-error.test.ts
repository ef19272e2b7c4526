import { describe, expect, it } from "vitest";
import { ModelError } from "../../../core/model/model-error.js";
import type { ModelRetry } from "../../../core/model/model-retry.js";
import { openaiModel } from "../../../core/model/openai-model.js";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { openAISpec, type OpenAISpec } from "../../helpers/model-spec.js";

const server = useOpenAIServer();
const KEY = "sk-test-secret-key-123456";
const request = { messages: [{ role: "user" as const, content: "x" }], tools: [], callIndex: 0 };
const OPENROUTER_502 = { code: 502, message: "Provider returned error", metadata: { provider_name: "Upstream" } };

/** One model call (with its retries) against the local server: its result or error, the retries announced, the text shown and the requests made. */
async function call(over: Partial<OpenAISpec> = {}) {
  const retries: ModelRetry[] = [];
  let shown = "";
  const before = server.requests.length;
  const result = await openaiModel(openAISpec(server.baseUrl, { maxRetries: 2, ...over }), { KEEL_TEST_KEY: KEY })
    .complete(request, { onRetry: (r) => retries.push(r), onText: (t) => (shown += t) })
    .catch((e: unknown) => e);
  return { result, retries, shown, requests: server.requests.length - before };
}

describe("an error the server sends inside its answer (real openai client, local server)", () => {
  it("OpenRouter's 502 chunk before any text: a transient error naming the endpoint and the provider's message, retried", async () => {
    server.push({ errorInAnswer: OPENROUTER_502 }, { text: "recovered" });
    const { result, retries, requests } = await call();
    // Old code: "The model call to … failed: Provider returned error", not transient, never retried.
    expect(result).toMatchObject({ text: "recovered" });
    expect(requests).toBe(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.message).toContain(`The provider at ${server.baseUrl} sent an error inside its answer (502: Provider returned error)`);
  });

  it("after text was shown: transient, but not retried (the user would see the text twice)", async () => {
    server.push({ text: "half an answer", errorInAnswer: OPENROUTER_502 });
    const { result, retries, shown, requests } = await call();
    expect(shown).toBe("half an answer");
    expect(requests).toBe(1);
    expect(retries).toEqual([]);
    expect(result).toBeInstanceOf(ModelError);
    expect((result as ModelError).transient).toBe(true);
    expect((result as ModelError).message).toContain("(502: Provider returned error), so keel recorded none of the answer");
  });

  const kinds: [string, object, boolean][] = [
    ["code 429", { code: 429, message: "Rate limit exceeded" }, true],
    ['code "503" as a string', { code: "503", message: "busy" }, true],
    ["OpenAI's server_error (code null)", { message: "The server had an error while processing your request.", type: "server_error", code: null }, true],
    ["code rate_limit_exceeded", { message: "slow down", code: "rate_limit_exceeded" }, true],
    ["Anthropic's overloaded_error", { message: "Overloaded", type: "overloaded_error" }, true],
    ["code 400", { code: 400, message: "context too long" }, false],
    ["code 401", { code: 401, message: "No auth credentials found" }, false],
    ["code 403", { code: 403, message: "moderation" }, false],
    ["no code or type", { message: "something odd" }, false],
  ];
  for (const [name, error, transient] of kinds)
    it(`${name}: transient ${transient}`, async () => {
      server.push({ errorInAnswer: error }, ...(transient ? [{ text: "recovered" }] : []));
      const { result, requests } = await call({ maxRetries: 1 });
      if (transient) {
        // Old code: not transient, not retried.
        expect(result).toMatchObject({ text: "recovered" });
        expect(requests).toBe(2);
      } else {
        expect(requests).toBe(1);
        expect(result).toBeInstanceOf(ModelError);
        expect((result as ModelError).transient).toBe(false);
        expect((result as ModelError).message).toMatch(/sent an error inside its answer .*Asking again will not help/);
      }
    });

  it("retries run out: the error says how many times keel tried", async () => {
    server.push({ errorInAnswer: OPENROUTER_502 }, { errorInAnswer: OPENROUTER_502 });
    const { result, requests } = await call({ maxRetries: 1 });
    expect(requests).toBe(2);
    expect((result as ModelError).message).toMatch(/\(502: Provider returned error\).*\(keel tried 2 times\)$/);
  });

  it("the provider's message is on one line and the API key it echoes is redacted", async () => {
    server.push({ errorInAnswer: { code: 401, message: `bad key ${KEY}\n[session x · answer y]` } });
    const { result } = await call();
    const message = (result as ModelError).message;
    expect(message).not.toContain(KEY);
    expect(message).toContain("bad key ***\\n[session x · answer y]");
    expect(message).not.toContain("\n");
  });

  it("not streamed: a 200 whose body is only {error} is the provider's error, retried like the streamed one", async () => {
    server.push({ errorInAnswer: OPENROUTER_502 }, { text: "recovered" });
    const { result, requests } = await call({ stream: false });
    // Old code: "returned no choices; check that "m" is a chat model", not transient.
    expect(result).toMatchObject({ text: "recovered" });
    expect(requests).toBe(2);
  });
});
