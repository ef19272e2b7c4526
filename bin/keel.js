#!/usr/bin/env node
// The `keel` executable: a thin shim over the compiled CLI in dist/ (built by `npm ci` / `npm run build`):
// the bundle in dist/cli/ (bin/bundle-cli.mjs), or the plain `tsc` output when there is no bundle
// as new as it (e.g. after a bare `tsc`).
import { closeSync, existsSync, statSync } from "node:fs";
import { isatty } from "node:tty";
import { fileURLToPath } from "node:url";

const compiled = new URL("../dist/bin/cli.js", import.meta.url);
const bundled = new URL("../dist/cli/keel-cli.js", import.meta.url);
// tsc's build state, in a checkout (the package leaves it out): an incremental `tsc` rewrites only the files a change
// touched (dist/bin/cli.js stays as it was when the edit is in any other module) and this file every time it emits.
const buildInfo = new URL("../dist/.tsbuildinfo", import.meta.url);
const mtime = (url) => statSync(fileURLToPath(url), { throwIfNoEntry: false })?.mtimeMs ?? 0;
if (!existsSync(fileURLToPath(compiled))) {
  process.stderr.write("keel is not built yet: run `npm ci` (or `npm run build`) in the keel checkout first.\n");
  process.exit(2);
}
const main = existsSync(fileURLToPath(bundled)) && mtime(bundled) >= Math.max(mtime(compiled), mtime(buildInfo)) ? bundled : compiled;
// A terminal or pipe that is gone — a closed pipe (`keel ... | head`, EPIPE) or a hung-up terminal (EIO) — is not a crash: the CLI
// cancels the command as Ctrl-C does (its tools' processes stopped, its session recorded) and later writes are dropped.
// A hung-up terminal (EIO, or SIGHUP: exit 129) is let go of before exiting: Node 20 aborts with a native stack trace
// when it cannot restore a terminal's settings at exit (nodejs/node#51519), so the descriptors of one are closed first.
const terminals = [0, 1, 2].filter((fd) => isatty(fd));
let hungUp = false;
for (const stream of [process.stdin, process.stdout, process.stderr])
  stream.on("error", (error) => {
    if (error && (error.code === "EPIPE" || error.code === "EIO")) return void (hungUp ||= error.code === "EIO");
    throw error;
  });
process.on("exit", (code) => {
  if (hungUp || code === 129)
    for (const fd of terminals)
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
});
// A hangup before the command starts ends keel with 129; while it runs, the command's own handler cancels it; once it
// has ended (its clean-up done: the terminal went away as keel was leaving), keel ends with the command's exit code, its
// pending log lines written, instead of being killed. Installed before the command and never removed, so no moment is
// left without a handler: the command removes its own as it ends, and a SIGHUP in between (one hangup often brings
// two) killed keel by the signal.
let phase = "starting";
process.on("SIGHUP", () => {
  if (phase === "running") return;
  hungUp = true;
  if (phase === "starting") process.exitCode = 129;
  process.exit();
});
const { main: run } = await import(main.href);
phase = "running";
process.exitCode = await run(process.argv.slice(2));
phase = "ended";
// Once nothing is left to do, keel ends through process.exit: when Node ends by itself (its event loop empty), it first
// closes every handle, signal handlers included, then spends some milliseconds tearing down, and a SIGHUP arriving then
// (the second of a hangup: the terminal's end came first) met the default action and killed keel, its work all done.
// process.exit keeps the handlers to the end. `beforeExit` comes only once the loop is empty: nothing pending is cut short.
process.once("beforeExit", () => process.exit());
