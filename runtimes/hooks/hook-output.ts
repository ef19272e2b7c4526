import type { HookProcessResult } from "./run-command-hook.js";

/** What one hook run means under Claude Code's protocol. */
export interface HookVerdict {
  /** Exit 2 (stderr), `decision: "block"` or `permissionDecision: "deny"` (the reason): the action is refused, with this text for the model. */
  block?: string;
  /** `continue: false`: stop processing, with `stopReason` (for the user). */
  stop?: string;
  permission?: "allow" | "ask";
  permissionReason?: string;
  updatedInput?: unknown;
  /** `hookSpecificOutput.additionalContext`, or plain stdout where Claude Code adds it to the context. */
  context?: string;
  /** A non-blocking error (another exit code, a timeout, a hook that could not start): shown to the user. */
  error?: string;
  /** One word for events and `keel hooks`. */
  decision: "block" | "deny" | "stop" | "ask" | "allow" | "context" | "error" | "none";
}

/**
 * Reads a hook's exit code and output as Claude Code does: exit 0 → stdout is parsed when it is a
 * JSON object (`decision`, `reason`, `continue`, `stopReason`, `hookSpecificOutput` with
 * `permissionDecision`, `permissionDecisionReason`, `updatedInput`, `additionalContext`), otherwise
 * it is plain text (`plainStdoutIsContext`: context for the model, as for UserPromptSubmit and
 * SessionStart); exit 2 → block with stderr; other exits → a non-blocking error. Pure; never throws.
 */
export function readVerdict(r: HookProcessResult, timeoutSec: number, plainStdoutIsContext: boolean): HookVerdict {
  if (r.startError) return { decision: "error", error: `could not start: ${r.startError}` };
  if (r.timedOut) return { decision: "error", error: `timed out after ${timeoutSec} s and was killed` };
  if (r.exitCode === 2) return { decision: "block", block: r.stderr.trim() || "blocked by a hook (exit code 2, no message)" };
  if (r.exitCode !== 0)
    return { decision: "error", error: r.exitCode === null ? "was killed" : `exited with code ${r.exitCode}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ""}` };
  const out = r.stdout.trim();
  const json = out.startsWith("{") ? parseObject(out) : undefined;
  if (!json) return out && plainStdoutIsContext ? { decision: "context", context: out } : { decision: "none" };
  const v: HookVerdict = { decision: "none" };
  const specific = isObject(json.hookSpecificOutput) ? json.hookSpecificOutput : {};
  const reason = str(json.reason);
  if (typeof specific.additionalContext === "string" && specific.additionalContext.trim()) {
    v.context = specific.additionalContext;
    v.decision = "context";
  }
  if (specific.updatedInput !== undefined && isObject(specific.updatedInput)) v.updatedInput = specific.updatedInput;
  const pd = specific.permissionDecision;
  const pdReason = str(specific.permissionDecisionReason);
  if (pd === "deny") {
    v.block = pdReason ?? reason ?? "denied by a hook";
    v.decision = "deny";
  } else if (pd === "ask" || pd === "allow") {
    v.permission = pd;
    v.permissionReason = pdReason ?? reason;
    v.decision = pd;
  } else if (json.decision === "approve") {
    v.permission = "allow";
    v.permissionReason = reason;
    v.decision = "allow";
  }
  if (json.decision === "block") {
    v.block = reason ?? "blocked by a hook";
    v.decision = "block";
  }
  if (json.continue === false) {
    v.stop = str(json.stopReason) ?? "a hook stopped processing";
    v.decision = "stop";
  }
  return v;
}

/**
 * `v` with `hide` applied to every text it carries (block and stop reasons, permission reason, context, error): the
 * credentials tool results hide (`host.resultSecrets`) become `***` there too. `updatedInput` (the tool's input) is kept.
 */
export function verdictWithSecretsHidden(v: HookVerdict, hide: (text: string) => string): HookVerdict {
  const out: HookVerdict = { ...v };
  for (const key of ["block", "stop", "permissionReason", "context", "error"] as const) {
    const text = v[key];
    if (text !== undefined) out[key] = hide(text);
  }
  return out;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v : undefined;
}
