import { execa } from "execa";
import { execFileSync } from "node:child_process";
import { KEEL_BIN } from "./run-cli.js";
import { tempDirForTest } from "./temp-workspace.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap): `--size N --tmpfs DIR` is a
// real file system of N bytes that really fills up, `--ro-bind DIR DIR` a really read-only one (the tests run as
// root, for whom file permissions do not bite). keel runs as a real process inside it.

/** A new empty folder to mount a small tmpfs on (`--size N --tmpfs DIR`), removed when the current test ends. */
export function smallDiskDir(): string {
  return tempDirForTest("keel-full-");
}

/** Runs `command` inside bwrap with `bwrapArgs` (mounts) and exactly `env`; its output. */
export async function inBwrapRun(bwrapArgs: string[], command: string[], env: NodeJS.ProcessEnv = process.env) {
  execFileSync("bwrap", ["--version"]); // fails the test with a clear error where bubblewrap is missing
  const r = await execa("bwrap", ["--dev-bind", "/", "/", ...bwrapArgs, "--", ...command], { env, extendEnv: false, reject: false });
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode };
}

/** Runs a shell script inside bwrap with `bwrapArgs` (mounts), `$KEEL` being the keel command; its output. */
export async function inBwrap(bwrapArgs: string[], script: string, env: NodeJS.ProcessEnv = process.env) {
  return inBwrapRun(bwrapArgs, ["bash", "-c", script], { ...env, KEEL: `${process.execPath} ${KEEL_BIN}`, CI: "true" });
}
