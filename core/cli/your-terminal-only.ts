import { UsageError } from "../errors.js";
import { CALL_MARK } from "../tools/call-mark.js";

/**
 * Throws UsageError when this keel was started by a process keel runs for a tool (a bash call, and
 * through it a workflow `run` step; a command hook; an MCP stdio server: all carry `KEEL_CALL`) and
 * `command` changes what keel allows (`keel trust`, `keel config confirm-local`): those are yours to
 * run, not a model's. A guard against a model doing it by accident, not a boundary: a command can
 * clear its environment (`env -u KEEL_CALL keel trust`); the sandbox, which keeps `$KEEL_HOME` read-only, is the boundary.
 */
export function refuseInToolProcess(env: NodeJS.ProcessEnv, command: string): void {
  if (!env[CALL_MARK]) return;
  throw new UsageError(
    `\`${command}\` did not run: it was started by a command keel runs for a tool (${CALL_MARK} is set: a bash call, a workflow step, a hook or an MCP server). Run this in your own terminal: it changes what keel allows.`,
  );
}

/** True when `KEEL_TRUST` asks to trust the workspace for this invocation (`1` or `true`). */
export function trustFromEnv(env: NodeJS.ProcessEnv): boolean {
  return env.KEEL_TRUST === "1" || env.KEEL_TRUST === "true";
}

/**
 * Throws UsageError when `--trust` (`flag`) or `KEEL_TRUST` asks to trust the workspace for this invocation
 * inside a process keel started for a tool: as `keel trust` is (see refuseInToolProcess), trusting a
 * workspace is yours to do, so a model's command cannot start an untrusted workspace's servers or hooks.
 */
export function refuseTrustInToolProcess(env: NodeJS.ProcessEnv, flag: boolean): void {
  if (!env[CALL_MARK] || (!flag && !trustFromEnv(env))) return;
  const how = flag ? "`--trust`" : "`KEEL_TRUST`";
  throw new UsageError(
    `${how} was refused: this keel was started by a command keel runs for a tool (${CALL_MARK} is set: a bash call, a workflow step, a hook or an MCP server), and trusting a workspace's manifests is yours to do, not a model's. Run \`keel trust\` once in your own terminal to trust this workspace for good (it approves what the workspace declares now), then run this without ${how}.`,
  );
}

/**
 * Throws UsageError when `--yes` (`flag`) is given inside a process keel started for a tool: a `keel --yes …` that a
 * model's command runs would approve every `ask` the session's own rules keep for you (a nested `keel --yes call
 * write_file …`), so answering them is yours to do, as `keel sessions approve` is (see refuseInToolProcess). Without
 * `--yes` such a keel asks as before and, with nobody to answer, ends the call with `approval_required`.
 */
export function refuseYesInToolProcess(env: NodeJS.ProcessEnv, flag: boolean): void {
  if (!env[CALL_MARK] || !flag) return;
  throw new UsageError(
    `\`--yes\` was refused: this keel was started by a command keel runs for a tool (${CALL_MARK} is set: a bash call, a workflow step, a hook or an MCP server), and approving what keel asks about is yours to do, not a model's. Nothing was run. Without --yes, a call that needs approval stops and says so, and the user decides in their own terminal.`,
  );
}
