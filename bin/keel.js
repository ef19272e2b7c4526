#!/usr/bin/env node
// The `keel` executable: a thin shim over the compiled CLI in dist/ (built by `npm ci` / `npm run build`):
// the bundle in dist/cli/ (bin/bundle-cli.mjs), or the plain `tsc` output when there is no bundle
// as new as it (e.g. after a bare `tsc`).
import { existsSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = new URL("../dist/bin/cli.js", import.meta.url);
const bundled = new URL("../dist/cli/keel-cli.js", import.meta.url);
const mtime = (url) => statSync(fileURLToPath(url)).mtimeMs;
if (!existsSync(fileURLToPath(compiled))) {
  process.stderr.write("keel is not built yet: run `npm ci` (or `npm run build`) in the keel checkout first.\n");
  process.exit(2);
}
const main = existsSync(fileURLToPath(bundled)) && mtime(bundled) >= mtime(compiled) ? bundled : compiled;
// A closed pipe (`keel ... | head`) ends the command quietly instead of with a stack trace.
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (error) => {
    if (error && error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
const { main: run } = await import(main.href);
process.exitCode = await run(process.argv.slice(2));
