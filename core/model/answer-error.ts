import { ModelError } from "./model-error.js";

/** Codes and types of an error sent inside an answer that asking again may fix (lower case): OpenAI's, OpenRouter's, Anthropic's, Google's. */
const TRANSIENT_KINDS = new Set([
  "server_error",
  "internal_error",
  "internal_server_error",
  "rate_limit_exceeded",
  "rate_limit_error",
  "overloaded",
  "overloaded_error",
  "service_unavailable",
  "timeout",
  "unavailable",
  "resource_exhausted",
  "internal",
  "deadline_exceeded",
]);

/**
 * The ModelError of an error a server sent inside a 200 answer (`data: {"error": {"code": 502, "message": …}}`
 * mid-stream, as OpenRouter and some proxies do when the provider behind them fails; or a non-streamed body
 * that is only `{"error": …}`): the `openai` SDK throws it as an APIError without a status. Transient when its
 * code is an HTTP status worth retrying (408, 409, 429, 5xx) or its code, type or status names an overload, a
 * rate limit or a server error; otherwise not. `where` is the endpoint as shown, `detail` the provider's message
 * on one line (redacted by the caller).
 */
export function answerError(error: unknown, where: string, model: string, detail: string): ModelError {
  const body = (error as { error?: unknown }).error;
  const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const code = fields["code"];
  const status = typeof code === "number" ? code : typeof code === "string" && /^\d{3}$/.test(code.trim()) ? Number(code) : undefined;
  const kinds = [code, fields["type"], fields["status"]].filter((k): k is string => typeof k === "string").map((k) => k.trim().toLowerCase());
  const transient = status !== undefined ? status === 408 || status === 409 || status === 429 || status >= 500 : kinds.some((k) => TRANSIENT_KINDS.has(k));
  const label = shortLabel(code ?? fields["type"] ?? fields["status"]);
  const what = `The provider at ${where} sent an error inside its answer (${label}: ${detail}), so keel recorded none of the answer.`;
  return transient
    ? new ModelError(
        `${what} It is a failure on the provider's side (an overloaded or failing upstream model, a rate limit) that may pass: keel retries it (model.maxRetries) unless text was already shown; run again or resume the session later, or pick another provider.`,
        true,
        { cause: error },
      )
    : new ModelError(
        `${what} Asking again will not help: check what the provider says (the model name "${model}", the API key, the account's access), then "model.name" and "model.baseUrl" in keel config.`,
        false,
        { cause: error },
      );
}

/** A code or type as shown in a message: one short line ("no code" when there is none). */
function shortLabel(value: unknown): string {
  if (typeof value !== "string" && typeof value !== "number") return "no code";
  const text = String(value)
    .replace(/[\p{Cc}\u2028\u2029]+/gu, " ")
    .trim()
    .slice(0, 64);
  return text || "no code";
}
