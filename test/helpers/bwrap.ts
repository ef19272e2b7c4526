import { execa } from "execa";
import { execFileSync } from "node:child_process";
import { KEEL_BIN } from "./run-cli.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap): `--size N --tmpfs DIR` is a
// real file system of N bytes that really fills up, `--ro-bind DIR DIR` a really read-only one (the tests run as
// root, for whom file permissions do not bite). keel runs as a real process inside it.

/** Runs a shell script inside bwrap with `bwrapArgs` (mounts), `$KEEL` being the keel command; its output. */
export async function inBwrap(bwrapArgs: string[], script: string, env: NodeJS.ProcessEnv = process.env) {
  execFileSync("bwrap", ["--version"]); // fails the test with a clear error where bubblewrap is missing
  const r = await execa("bwrap", ["--dev-bind", "/", "/", ...bwrapArgs, "--", "bash", "-c", script], {
    env: { ...env, KEEL: `${process.execPath} ${KEEL_BIN}`, CI: "true" },
    extendEnv: false,
    reject: false,
  });
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode };
}
