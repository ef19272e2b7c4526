import { execa } from "execa";
import { fileURLToPath } from "node:url";

/** Path of the keel executable (the built CLI; `npm test` builds first). */
export const KEEL_BIN = fileURLToPath(new URL("../../bin/keel.js", import.meta.url));

/** Result of one CLI run. */
export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws with the output when it is not JSON). */
  json<T = any>(): T;
}

/** Runs `keel ...args` as a real process with stdin closed (non-interactive), in `cwd`. */
export async function runKeel(args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; input?: string; timeout?: number }): Promise<CliRun> {
  const r = await execa("node", [KEEL_BIN, ...args], {
    cwd: opts.cwd,
    env: opts.env,
    extendEnv: opts.env === undefined,
    input: opts.input,
    stdin: opts.input === undefined ? "ignore" : undefined,
    reject: false,
    timeout: opts.timeout ?? 60_000,
  });
  const stdout = String(r.stdout ?? "");
  const stderr = String(r.stderr ?? "");
  return {
    exitCode: r.exitCode ?? -1,
    stdout,
    stderr,
    json() {
      try {
        return JSON.parse(stdout);
      } catch {
        throw new Error(`keel ${args.join(" ")} did not print JSON.\nexit ${r.exitCode}\nstdout: ${stdout}\nstderr: ${stderr}`);
      }
    },
  };
}
