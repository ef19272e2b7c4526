#!/usr/bin/env node
// The `keel` executable: a thin shim over the compiled CLI in dist/ (built by `npm ci` / `npm run build`).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const main = new URL("../dist/bin/cli.js", import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write("keel is not built yet: run `npm ci` (or `npm run build`) in the keel checkout first.\n");
  process.exit(2);
}
// A closed pipe (`keel ... | head`) ends the command quietly instead of with a stack trace.
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (error) => {
    if (error && error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
const { main: run } = await import(main.href);
process.exitCode = await run(process.argv.slice(2));
