import { looksSecretName, looksSecretValue, secretShapesIn } from "../secret-words.js";
import { urlSecrets } from "../url-secrets.js";
import type { Fetch } from "../net/proxy-fetch.js";
import type { ModelSpec } from "./model-spec.js";
import type { ModelClient } from "./model-types.js";
import { openaiModel } from "./openai-model.js";
import { scriptedModel } from "./scripted-model.js";
import { envValue } from "../env-value.js";

/** Creates the backend for a resolved model spec, its requests sent with `fetch` (the host's). Throws UsageError when it cannot be used. */
export function createModel(spec: ModelSpec, env: NodeJS.ProcessEnv, fetch?: Fetch): ModelClient {
  return spec.kind === "scripted" ? scriptedModel(spec) : openaiModel(spec, env, fetch);
}

/**
 * The credentials keel sends the model endpoint of `spec`: its API key, the values of its headers named like a
 * credential or shaped like one (the token of `Bearer X` on its own too), and the base URL's password and key-like
 * query values. Tool results hide them (`host.resultSecrets`): a `.env` the model reads shows the key as `***`.
 */
export function modelCredentials(spec: ModelSpec, env: NodeJS.ProcessEnv): string[] {
  if (spec.kind !== "openai") return [];
  const headers = Object.entries(spec.headers ?? {}).filter(([name, value]) => looksSecretName(name, "display") || looksSecretValue(value));
  return [envValue(env, spec.apiKeyEnv) ?? "", ...headers.flatMap(([, value]) => [value, ...secretShapesIn(value)]), ...urlSecrets(spec.baseUrl)];
}
