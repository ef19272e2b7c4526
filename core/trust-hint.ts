import { CALL_MARK } from "./tools/call-mark.js";

/** True when this keel runs inside a process keel started for a tool (`KEEL_CALL` set: a bash call, a workflow step, a hook, an MCP server). */
export function inToolProcess(env: Record<string, string | undefined>): boolean {
  return Boolean(env[CALL_MARK]);
}

/** What a message says after a mention of `keel trust` instead of a way to trust for one run, to a model or inside a process keel started for a tool (where `--trust` and `KEEL_TRUST` are refused). */
export const ASK_USER_TO_TRUST = " (ask the user to run it in their own terminal: a command keel runs for a tool may not trust a workspace)";

/**
 * The ways to trust for one run that messages add after a mention of `keel trust`, for the user's own
 * terminal. Every one is listed here, so that forModel can put ASK_USER_TO_TRUST in its place.
 */
export const TRUST_ONCE = Object.freeze({
  flagOrEnv: " (or pass --trust, or set KEEL_TRUST=1)",
  flag: " (or pass --trust)",
  flagOneRun: " (or pass --trust for one run)",
  orFlagOneRun: ", or pass --trust for one run",
  persistentOrOnce: " (persistent), or pass --trust or set KEEL_TRUST=1 for one invocation",
  orOnce: ", or pass --trust or set KEEL_TRUST=1 for one invocation",
  reRun: ", or re-run with --trust",
});

/** One of TRUST_ONCE's clauses. */
export type TrustOnceClause = (typeof TRUST_ONCE)[keyof typeof TRUST_ONCE];

// Longest first: one clause may end with another (`persistentOrOnce`, `orOnce`).
const CLAUSES: readonly string[] = Object.values(TRUST_ONCE).sort((a, b) => b.length - a.length);

/**
 * `clause` (a message's way to trust for one run: ` (or pass --trust)`), or, inside a process keel started
 * for a tool, ASK_USER_TO_TRUST: there keel suggests nothing a model's command can run to widen what keel allows.
 */
export function orTrustOnce(marked: boolean, clause: TrustOnceClause): string {
  return marked ? ASK_USER_TO_TRUST : clause;
}

/**
 * A message keel wrote for the user, worded for a model: each of TRUST_ONCE's clauses becomes
 * ASK_USER_TO_TRUST (a model is told to ask the user to run `keel trust`, never a way to trust for one
 * run). Only for keel's own messages (refusals, errors, diagnostics): a tool's output is left as it is.
 */
export function forModel(text: string): string {
  if (!text.includes("--trust") && !text.includes("KEEL_TRUST")) return text;
  let out = text;
  for (const clause of CLAUSES) out = out.split(clause).join(ASK_USER_TO_TRUST);
  return out;
}

/** Callers whose results the user's own command line or an embedding program reads (`keel call`, `callTool`, the default). */
const USER_READS: ReadonlySet<string> = new Set(["cli", "api", "embed"]);

/**
 * True when what a call returns is read by a model: `readByModel` when the caller set it (a workflow's
 * steps), else by origin — an agent turn, a sub-agent, a client of `keel mcp serve`, a prompt command's
 * shell line, and any caller keel does not know; not `keel call` (`cli`), `callTool` (`embed`) or `api`.
 */
export function modelReads(run: { origin?: string; readByModel?: boolean }): boolean {
  return run.readByModel ?? !USER_READS.has(run.origin ?? "api");
}
