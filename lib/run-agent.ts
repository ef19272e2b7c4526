import { resolveModelSpec, UsageError, type AgentOutcome, type Host, type KeelEvent, type ToolCallEnd, type ToolCallStart } from "../core/index.js";
import { toApprover, type ApproverLike } from "./approver.js";
import { checkRunAgentOptions } from "./embed-options.js";

const NO_MODEL = [
  "runAgent: no model is configured. Pass `model` to createHost: a name on an OpenAI-compatible endpoint",
  '({ name: "llama3.1", baseUrl: "http://localhost:11434/v1" }, or "gpt-4o-mini" with OPENAI_API_KEY in its `env`), or "scripted:FILE";',
  "or `model` to runAgent (a name on the configured endpoint); or set `model` in $KEEL_HOME/config.json (the KEEL_HOME of createHost's `env`).",
  'See the README sections "Embedding keel" and "The agent".',
].join(" ");

/** Options of one `runAgent` turn. */
export interface RunAgentOptions {
  /** Answers calls that need approval (default: the host's); without one (and without `yes`) the turn pauses with `awaiting_approval`. */
  approver?: ApproverLike;
  /** Approve every `ask` in this turn (deny rules still win); default: the host's `yes`. */
  yes?: boolean;
  /** Receives the model's text as it streams. */
  onText?: (delta: string) => void;
  /** Called when a tool call of the model enters the pipeline. */
  onToolStart?: (call: ToolCallStart) => void;
  /** Called with each tool call's observation. */
  onToolEnd?: (call: ToolCallEnd) => void;
  /** Receives every event of the session's log as it is recorded. */
  onEvent?: (event: KeelEvent) => void;
  /** Aborts the turn (it ends with reason `cancelled`; the session can be resumed). `host.close()` aborts it too, and waits for it to end. */
  signal?: AbortSignal;
  /** Model for this turn (a name on the configured endpoint, or `scripted:FILE`); default: the host's. */
  model?: string;
  /** Most model calls in this turn. */
  maxSteps?: number;
  /** Id of the new session (default: generated). */
  sessionId?: string;
  /** Continue this session (with `prompt` as its next message) instead of starting one. */
  resume?: string;
}

/**
 * Runs one agent turn on `prompt` in a new session (or continues `resume`), as `keel run` does: the
 * session is recorded under `.keel/sessions/<id>/`, every tool call goes through the pipeline.
 * Resolves to the outcome (answer text, reason, usage, a pending approval). Throws `UsageError` when
 * no model is configured (pass `model` to `createHost` or here), the prompt is empty or an option is
 * not of its type (e.g. `yes: "false"`); model and
 * tool failures come back as the outcome's `reason`.
 */
export async function runAgent(host: Host, prompt: string, options: RunAgentOptions = {}): Promise<AgentOutcome> {
  checkRunAgentOptions(options);
  const runtime = host.service("agent-runtime");
  if (!runtime) throw new UsageError("This host has no agent runtime: open it with createHost().");
  if (!prompt.trim() && !options.resume) throw new UsageError("runAgent needs a prompt (or `resume` with a session id).");
  // The CLI's help names --model and keel run: a program is told what it can pass.
  if (!options.resume && !resolveModelSpec(host.config, options.model, host.env, host.workspace.root)) throw new UsageError(NO_MODEL);
  const { approver, resume, sessionId, ...rest } = options;
  const { onText } = rest;
  const run = {
    ...rest,
    prompt,
    yes: rest.yes ?? host.options.yes,
    approver: toApprover(approver) ?? host.options.approver,
    // like the other callbacks (guarded where core calls them), a throwing onText must not fail the model call
    onText:
      onText &&
      ((delta: string) => {
        try {
          onText(delta);
        } catch {
          // watching only
        }
      }),
  };
  // Cancelled by `options.signal` or by `host.close()`, which waits for the turn to end (its session unlocked, its events written).
  return host.whileOpen(options.signal, (signal) => (resume ? runtime.resume(resume, { ...run, signal }) : runtime.start({ ...run, signal, sessionId })));
}
