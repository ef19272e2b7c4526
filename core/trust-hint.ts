import { CALL_MARK } from "./tools/call-mark.js";

/** True when this keel runs inside a process keel started for a tool (`KEEL_CALL` set: a bash call, a workflow step, a hook, an MCP server). */
export function inToolProcess(env: Record<string, string | undefined>): boolean {
  return Boolean(env[CALL_MARK]);
}

/** What a message says after a mention of `keel trust` instead of a way to trust for one run, inside a process keel started for a tool (where `--trust` and `KEEL_TRUST` are refused). */
export const ASK_USER_TO_TRUST = " (ask the user to run it in their own terminal: a command keel runs for a tool may not trust a workspace)";

/**
 * `clause` (a message's way to trust for one run: ` (or pass --trust)`), or, inside a process keel started
 * for a tool, ASK_USER_TO_TRUST: there keel suggests nothing a model's command can run to widen what keel allows.
 */
export function orTrustOnce(marked: boolean, clause: string): string {
  return marked ? ASK_USER_TO_TRUST : clause;
}
