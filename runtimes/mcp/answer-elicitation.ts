import { ABORTED, describeSchemaErrors, type Host, untilAborted } from "../../core/index.js";
import type { ElicitationAnswer, ElicitationRequest, Elicitor } from "./elicitation.js";

/** How many times a user is asked again after an answer that does not match the requested schema. */
const MAX_ATTEMPTS = 3;

/**
 * Answers one `elicitation/create` for a server: URL mode is declined (keel opens no URLs for
 * servers); a form answer is checked against `requestedSchema` (with its defaults filled in, as
 * the SDK sends them) before it is sent — an interactive elicitor is asked again with the problem,
 * any other answer that does not match is declined. Time spent in an elicitor that waits for the
 * user is recorded on `host.userWait`, so tool timeouts leave it out. Once `signal` aborts (the server cancelled the
 * request, the connection closed, or the calls it was asked during ended) keel stops waiting, even for an elicitor
 * that ignores its signal (an embedding program's), and answers `cancel`; a later answer is ignored. Emits
 * `mcp_elicitation` (with `reason` when keel answered on its own). Never throws for a user's answer.
 */
export async function answerElicitation(host: Host, elicit: Elicitor, request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer> {
  const report = (answer: ElicitationAnswer, reason?: string): ElicitationAnswer => {
    host.events.emit({ type: "mcp_elicitation", server: request.server, action: answer.action, ...(reason ? { reason } : {}) });
    return answer;
  };
  if (request.mode === "url") return report({ action: "decline" }, "URL-mode elicitation is not supported by keel (it opens no URLs for servers); declined");
  let asked = request;
  for (let attempt = 1; ; attempt++) {
    const end = elicit.waitsForUser ? host.userWait.begin() : undefined;
    let answer: ElicitationAnswer | typeof ABORTED;
    try {
      answer = await untilAborted(elicit(asked, signal), signal);
    } finally {
      end?.();
    }
    if (answer === ABORTED) return report({ action: "cancel" }, `no longer waiting for an answer: ${stopReason(signal)}`);
    if (answer.action !== "accept" || !request.requestedSchema) return report(answer);
    const problem = formProblem(host, request.requestedSchema, answer.content ?? {});
    if (!problem) return report(answer);
    const reason = `the answer does not match the requested form: ${problem}`;
    if (!elicit.waitsForUser || attempt >= MAX_ATTEMPTS) return report({ action: "decline" }, `${reason}; declined`);
    asked = { ...request, message: `${request.message}\n(The last answer was not accepted: ${problem}. Please answer again.)` };
  }
}

/** Why `signal` aborted, in a few words. */
function stopReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.name !== "AbortError" ? reason.message : "the request was cancelled";
}

/** Problems of `content` (with the schema's defaults filled in) against the form schema, or undefined. */
function formProblem(host: Host, schema: NonNullable<ElicitationRequest["requestedSchema"]>, content: Record<string, unknown>): string | undefined {
  const filled: Record<string, unknown> = { ...content };
  for (const [key, prop] of Object.entries(schema.properties ?? {})) if (filled[key] === undefined && prop.default !== undefined) filled[key] = prop.default;
  const compiled = host.validator.forSchema({ type: "object", ...schema });
  // A form keel cannot compile is sent unchecked: the server validates it too.
  if (!compiled.ok || compiled.validate(filled)) return undefined;
  return describeSchemaErrors(compiled.validate.errors, filled).slice(0, 5).join("; ");
}
