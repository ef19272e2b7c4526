import { errorMessage } from "../errors.js";
import { proxyForDisplay } from "../net/proxy-settings.js";
import { redactSecrets } from "../redact-secrets.js";
import { redirectTargetForDisplay, urlForDisplay, urlSecrets } from "../url-secrets.js";
import { answerError } from "./answer-error.js";
import { endpointParts } from "./endpoint-url.js";
import { ModelError } from "./model-error.js";
import { proxyRefusal } from "./proxy-refusal.js";
import type { ModelSpec } from "./model-spec.js";

type OpenAISpec = Extract<ModelSpec, { kind: "openai" }>;

/**
 * Turns an error from the `openai` client into a ModelError whose message says what to fix. The API
 * key, the configured headers' values and the base URL's credentials (its user name and password,
 * the `Authorization: Basic …` keel makes of them, its key-like query values: see `urlSecrets`) are
 * `***` in it wherever the provider's message echoes them, as written, URL-encoded or JSON-escaped
 * (the message goes to events and the terminal). With `proxy` (the proxy the endpoint is reached through), a connection
 * that fails says so, with the proxy's own error (`Proxy Authentication Required (407)`), the proxy without its
 * credentials, and the proxy's password `***` too. The proxy's own refusal (`proxyRefusal`: a refused tunnel, or its own
 * 403/407/502/503/504 page to a plain-HTTP request, `jsonBody` false) is said as the proxy's. Never throws.
 */
export function describeProviderError(
  error: unknown,
  spec: OpenAISpec,
  signal: AbortSignal | undefined,
  sdk: typeof import("openai"),
  bodyMessage?: string,
  apiKey?: string,
  proxy?: string,
  jsonBody = true,
): ModelError {
  const secrets = [...endpointSecrets(spec, apiKey), ...(proxy ? [proxy, ...urlSecrets(proxy)] : [])];
  // The provider's words are redacted before they are cut (shown): a key cut in two would leave its first part.
  const e = describe(error, spec, signal, sdk, bodyMessage, (text) => redactSecrets(text, secrets), proxy, jsonBody);
  const message = redactSecrets(e.message, secrets);
  return message === e.message ? e : new ModelError(message, e.transient, { cause: error });
}

/**
 * What a provider may echo of the credentials keel sends: the API key, header values and the base URL's user name, 8
 * characters or more (a header such as `X-Debug: 1` is no credential, and a short user name such as `api` is often a
 * public word that would leave the message unreadable as `***`), a header's credential without its scheme
 * (`Authorization: Bearer X` → "invalid token X"), and the base URL's password, its `Basic` credential and its
 * key-like query values.
 */
function endpointSecrets(spec: OpenAISpec, apiKey: string | undefined): string[] {
  const sent = [apiKey, ...Object.values(spec.headers ?? {})];
  const fromUrl = urlSecrets(spec.baseUrl);
  const user = userForms(spec.baseUrl);
  if (spec.baseUrl) sent.push(endpointParts(spec.baseUrl).authorization, ...user);
  const long = sent.filter((s): s is string => s !== undefined && s.length >= 8).flatMap((v) => [v, ...(AUTH_SCHEME.exec(v)?.slice(1) ?? [])]);
  return [...long, ...fromUrl.filter((s) => !user.includes(s))];
}

/** The user name of `url`, as written and decoded; none when it has none or cannot be parsed. */
function userForms(url: string | undefined): string[] {
  try {
    const user = url ? new URL(url).username : "";
    return user ? [user, decodeURIComponent(user)] : [];
  } catch {
    return [];
  }
}

/** An HTTP authorization value: its scheme, then the credential (`Bearer X`, `Basic X`, `token X`). */
/** The innermost message of an error's `cause` chain (the SDK's "Connection error." hides undici's, which hides the socket's or the proxy's). */
function rootCause(error: unknown): string {
  let e = error as { cause?: unknown; message?: unknown } | undefined;
  for (let depth = 0; depth < 5 && e?.cause instanceof Error; depth++) e = e.cause as typeof e;
  return e instanceof Error ? errorMessage(e) : errorMessage(error);
}

const AUTH_SCHEME = /^\s*[A-Za-z][\w-]*\s+(\S.*?)\s*$/;

function describe(
  error: unknown,
  spec: OpenAISpec,
  signal: AbortSignal | undefined,
  sdk: typeof import("openai"),
  bodyMessage: string | undefined,
  redact: (text: string) => string,
  proxy: string | undefined,
  jsonBody: boolean,
): ModelError {
  const where = spec.baseUrl ? urlForDisplay(spec.baseUrl) : "https://api.openai.com/v1";
  const e = error as { status?: number; name?: string; message?: string; error?: { message?: string } };
  // The SDK reads only OpenAI's error shape; keel's copy of the body has the message of the others.
  // On one line: it goes inside keel's own sentence, and a newline in it would print lines keel never
  // wrote (a status line `[session … · answer …]` from a hostile endpoint) where the error is shown.
  const detail = shown(redact(String(e?.error?.message ?? bodyMessage ?? errorMessage(error))));
  if (signal?.aborted || error instanceof sdk.APIUserAbortError || e?.name === "AbortError")
    return new ModelError("The model call was cancelled.", false, { cause: error });
  if (error instanceof sdk.APIConnectionTimeoutError)
    return new ModelError(
      `The model at ${where} did not answer within ${spec.timeoutMs} ms. Raise "model.timeoutMs" in keel config or check the server's load.`,
      true,
      { cause: error },
    );
  if (proxy && !(signal?.aborted || error instanceof sdk.APIUserAbortError)) {
    const refusal = proxyRefusal({
      proxy,
      where,
      tunnelled: /^https:/i.test(spec.baseUrl ?? "https:"),
      status: error instanceof sdk.APIError && typeof e.status === "number" ? e.status : undefined,
      jsonBody,
      connectionError: error instanceof sdk.APIConnectionError ? rootCause(error) : undefined,
    });
    if (refusal) return new ModelError(refusal.message, refusal.transient, { cause: error });
  }
  if (error instanceof sdk.APIConnectionError && proxy)
    return new ModelError(
      `Cannot reach the model at ${where} through the proxy ${proxyForDisplay(proxy)} (${shown(redact(rootCause(error)))}). Check that the proxy is up and accepts your credentials (HTTPS_PROXY/HTTP_PROXY), or list the host in NO_PROXY if it is reached without the proxy.`,
      // The proxy refusing the credentials (undici's `Proxy Authentication Required (407)`) says the same when asked again.
      !/\(407\)/.test(rootCause(error)),
      { cause: error },
    );
  if (error instanceof sdk.APIConnectionError)
    return new ModelError(
      `Cannot reach the model at ${where} (${detail}). Is the server running? Check "model.baseUrl" in keel config or OPENAI_BASE_URL.`,
      true,
      { cause: error },
    );
  // An error sent inside a 200 answer (mid-stream, or as the whole body): the SDK's APIError without a status.
  if (error instanceof sdk.APIError && e.status === undefined) return answerError(error, where, spec.name, detail);
  if (typeof e?.status === "number" && e.status >= 300 && e.status < 400) return redirected(error, e.status, where);
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
  // What the SDK used to retry (request timeout, lock timeout, server errors): keel's retries take them (withRetries).
  if (typeof e?.status === "number" && (e.status >= 500 || e.status === 408 || e.status === 409))
    return new ModelError(`The provider at ${where} failed (${e.status}: ${detail}). Retry later.`, true, { cause: error });
  return new ModelError(`The model call to ${where} failed: ${detail}`, false, { cause: error });
}

/**
 * A redirect keel did not follow (see openaiModel's fetch): to another origin, or a POST's 301/302/303.
 * Names the target without user name, password, query or fragment (they may hold credentials).
 */
function redirected(error: unknown, status: number, where: string): ModelError {
  const target = redirectTargetForDisplay((error as { headers?: Headers }).headers?.get?.("location"), where);
  return new ModelError(
    `The model endpoint ${where} redirected keel to ${target} (${status}). keel follows a redirect only within the endpoint's origin (and a request with a body only on 307 or 308), so your API key and "model.headers" never go to another address. If that address is the right endpoint, set "model.baseUrl" to it.`,
    false,
    { cause: error },
  );
}

/** Most characters of a provider's message keel's sentence quotes (the event and terminal line stay readable). */
const MAX_DETAIL_CHARS = 300;

/**
 * A provider's message as keel's sentence quotes it: on one line, at most MAX_DETAIL_CHARS; an HTML page
 * (a proxy's or gateway's error page) only named, with its size: its markup says nothing and may echo the request.
 */
function shown(text: string): string {
  const start = text.trimStart();
  if (/^<(?:!doctype|html|head|body|\?xml)\b/i.test(start)) return `an HTML page of ${Buffer.byteLength(text)} bytes`;
  const line = oneLine(text);
  return line.length > MAX_DETAIL_CHARS ? `${line.slice(0, MAX_DETAIL_CHARS)}…` : line;
}

/** `text` with its line breaks shown as `\n` (and the blanks around them dropped). */
function oneLine(text: string): string {
  return text.trim().replace(/[^\S\r\n\u2028\u2029]*(?:\r\n?|\n|\u2028|\u2029)\s*/g, "\\n");
}
