import { errorMessage } from "../errors.js";
import { urlForDisplay } from "../url-secrets.js";
import { ModelError } from "./model-error.js";
import type { ModelSpec } from "./model-spec.js";

type OpenAISpec = Extract<ModelSpec, { kind: "openai" }>;

/**
 * Turns an error from the `openai` client into a ModelError whose message says what to fix. The API
 * key and the configured headers' values are `***` in it wherever the provider's message echoes
 * them (the message goes to events and the terminal). Never throws.
 */
export function describeProviderError(
  error: unknown,
  spec: OpenAISpec,
  signal: AbortSignal | undefined,
  sdk: typeof import("openai"),
  bodyMessage?: string,
  apiKey?: string,
): ModelError {
  const e = describe(error, spec, signal, sdk, bodyMessage);
  // A header's credential may be echoed without its scheme (`Authorization: Bearer X` → "invalid token X").
  const headerValues = Object.values(spec.headers ?? {}).flatMap((v) => [v, ...(AUTH_SCHEME.exec(v)?.slice(1) ?? [])]);
  const secrets = [apiKey, ...headerValues].filter((s): s is string => s !== undefined && s.length >= 8 && e.message.includes(s));
  if (!secrets.length) return e;
  const message = secrets.sort((a, b) => b.length - a.length).reduce((text, s) => text.split(s).join("***"), e.message);
  return new ModelError(message, e.transient, { cause: error });
}

/** An HTTP authorization value: its scheme, then the credential (`Bearer X`, `Basic X`, `token X`). */
const AUTH_SCHEME = /^\s*[A-Za-z][\w-]*\s+(\S.*?)\s*$/;

function describe(error: unknown, spec: OpenAISpec, signal: AbortSignal | undefined, sdk: typeof import("openai"), bodyMessage?: string): ModelError {
  const where = spec.baseUrl ? urlForDisplay(spec.baseUrl) : "https://api.openai.com/v1";
  const e = error as { status?: number; name?: string; message?: string; error?: { message?: string } };
  // The SDK reads only OpenAI's error shape; keel's copy of the body has the message of the others.
  const detail = e?.error?.message ?? bodyMessage ?? errorMessage(error);
  if (signal?.aborted || error instanceof sdk.APIUserAbortError || e?.name === "AbortError")
    return new ModelError("The model call was cancelled.", false, { cause: error });
  if (error instanceof sdk.APIConnectionTimeoutError)
    return new ModelError(
      `The model at ${where} did not answer within ${spec.timeoutMs} ms. Raise "model.timeoutMs" in keel config or check the server's load.`,
      true,
      { cause: error },
    );
  if (error instanceof sdk.APIConnectionError)
    return new ModelError(
      `Cannot reach the model at ${where} (${detail}). Is the server running? Check "model.baseUrl" in keel config or OPENAI_BASE_URL.`,
      true,
      { cause: error },
    );
  switch (e?.status) {
    case 401:
      return new ModelError(
        `The provider at ${where} rejected the API key (401: ${detail}). Set ${spec.apiKeyEnv} to a valid key (or "model.apiKeyEnv" to the variable holding it).`,
        false,
        { cause: error },
      );
    case 403:
      return new ModelError(
        `The provider at ${where} refused access to model "${spec.name}" (403: ${detail}). Check the key's permissions or pick another model.`,
        false,
        { cause: error },
      );
    case 404:
      return new ModelError(
        `Model "${spec.name}" or the endpoint was not found at ${where} (404: ${detail}). Check "model.name" and that "model.baseUrl" ends in /v1 (or the provider's API path).`,
        false,
        { cause: error },
      );
    case 429:
      return new ModelError(`The provider at ${where} is rate limiting or out of quota (429: ${detail}). Wait and retry, or check the account's quota.`, true, {
        cause: error,
      });
    case 400:
    case 422:
      return new ModelError(
        `The provider at ${where} rejected the request for "${spec.name}" (${e.status}: ${detail}). If it mentions context length, lower "model.contextWindow"; if it mentions tools, the model may not support tool calling.`,
        false,
        { cause: error },
      );
  }
  if (typeof e?.status === "number" && e.status >= 500)
    return new ModelError(`The provider at ${where} failed (${e.status}: ${detail}) after retries. Retry later.`, true, { cause: error });
  return new ModelError(`The model call to ${where} failed: ${detail}`, false, { cause: error });
}
