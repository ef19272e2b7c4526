import type { ModelSpec } from "../../core/model/model-spec.js";

/** The resolved spec of an OpenAI-compatible model. */
export type OpenAISpec = Extract<ModelSpec, { kind: "openai" }>;

/** A model spec for the local OpenAI-compatible test server at `baseUrl`: key in KEEL_TEST_KEY, generous timeouts, no retries unless `over` asks. */
export function openAISpec(baseUrl: string, over: Partial<OpenAISpec> = {}): OpenAISpec {
  return {
    kind: "openai",
    name: "m",
    baseUrl,
    apiKeyEnv: "KEEL_TEST_KEY",
    contextWindow: 8000,
    maxOutputTokens: 256,
    timeoutMs: 60_000,
    streamIdleTimeoutMs: 60_000,
    maxRetries: 0,
    stream: true,
    ...over,
  };
}
