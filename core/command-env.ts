import type { Host } from "./host.js";
import { scrubSecrets } from "./secret-env.js";

/** Variables that hold keel's own model credentials by convention. */
const MODEL_KEY_VARS = ["OPENAI_API_KEY"];

/** The variables holding keel's model key (`OPENAI_API_KEY` and the configured `model.apiKeyEnv`): never in a command's environment. */
export function modelKeyVars(config: Host["config"]): string[] {
  const model = config.model;
  const keyVar = typeof model === "object" && model !== null ? (model as { apiKeyEnv?: unknown }).apiKeyEnv : undefined;
  return [...MODEL_KEY_VARS, ...(typeof keyVar === "string" ? [keyVar] : [])];
}

/** The `commandEnv.pass` patterns of the merged config (empty when unset). */
export function passedVars(config: Host["config"]): string[] {
  const pass = (config as { commandEnv?: { pass?: unknown } }).commandEnv?.pass;
  return Array.isArray(pass) ? pass.filter((p): p is string => typeof p === "string") : [];
}

/**
 * The environment of commands keel runs for the model (the bash tool, and through it workflow
 * `run` steps and commands' shell lines): keel's own environment without the model's key and
 * without every variable that looks like a secret (see `looksSecret`) unless `commandEnv.pass`
 * names it, so a command — and through its output the model and `.keel` files — never sees them.
 */
export function commandEnv(host: Host): Record<string, string | undefined> {
  return scrubSecrets(host.env, passedVars(host.config), neverPassed(host.config)).env;
}

/**
 * What a command run for the model never gets: the model key, and `KEEL_TRUST` (a `keel` the model
 * runs, e.g. `keel --cwd ../other-repo run …`, must not inherit trust you gave this invocation).
 */
function neverPassed(config: Host["config"]): string[] {
  return [...modelKeyVars(config), "KEEL_TRUST"];
}

/** The names `commandEnv` takes out besides the model key (sorted), for `keel doctor`. */
export function scrubbedVarNames(host: Host): string[] {
  return scrubSecrets(host.env, passedVars(host.config), neverPassed(host.config)).removed;
}

/**
 * The environment of command hooks: keel's own without the model's key and `KEEL_TRUST` (keel's own
 * control variable: a `keel` a hook runs, such as `keel send`, is inside a tool process, where it is
 * refused). Hooks are code you approved (your config, or a workspace you trusted, pinned by `keel trust`),
 * not commands the model chose, and commonly need your tokens (`gh`, notifications), as in Claude Code.
 */
export function hookEnv(host: Host): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...host.env };
  for (const name of [...modelKeyVars(host.config), "KEEL_TRUST"]) delete env[name];
  return env;
}
