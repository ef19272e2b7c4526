import { ToolError } from "../errors.js";

/** Prefix of the variables that carry a sandboxed process's own `env` through `/bin/sh` and `bwrap`, inert to both. */
export const INNER_ENV_PREFIX = "KEEL_SANDBOX_ENV_";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Inside the sandbox, before the command: each `NAME` listed before `--` is exported with the value of
 * `KEEL_SANDBOX_ENV_NAME`, which is unset. The value is expanded, never evaluated as code.
 */
const SCRIPT = `for n; do shift; [ "$n" = -- ] && break; eval "export $n=\\"\\\${${INNER_ENV_PREFIX}$n}\\"; unset ${INNER_ENV_PREFIX}$n"; done; exec "$@"`;

/**
 * How to give a sandboxed command variables of its own (an MCP server manifest's `env`) that the programs
 * starting the sandbox outside it (`/bin/sh`, `bwrap`) must not act on — `LD_PRELOAD=./evil.so` would load
 * the workspace's code there, unsandboxed — and that must not appear in a command line (`bwrap --setenv`
 * would show a token to every user of the machine in `ps`): `outer` goes into the spawned process's
 * environment under inert names, and `argv` (run inside the sandbox) sets them back. Throws
 * ToolError(`precondition_failed`) for a name that is not a shell variable name.
 */
export function innerEnv(env: Readonly<Record<string, string>>, argv: readonly string[]): { argv: string[]; outer: Record<string, string> } {
  const names = Object.keys(env);
  if (!names.length) return { argv: [...argv], outer: {} };
  const bad = names.find((name) => !NAME.test(name));
  if (bad !== undefined)
    throw new ToolError(
      `The sandbox cannot set the variable ${JSON.stringify(bad)}: only names of letters, digits and _ (not starting with a digit) can be passed into it. Nothing was started; rename or remove it in the server's "env".`,
      "precondition_failed",
    );
  const outer = Object.fromEntries(names.map((name) => [`${INNER_ENV_PREFIX}${name}`, env[name]!]));
  return { argv: ["/bin/sh", "-c", SCRIPT, "keel-env", ...names, "--", ...argv], outer };
}
