// Node 20 lacks `fs.globSync` (added in Node 22), which @modelcontextprotocol/conformance >= 0.1.14
// imports at load time for a subcommand the client suite never runs. Loaded with
// `node --import ./test/helpers/fs-glob-shim.mjs`, this registers a module-resolution hook that,
// for importers inside the conformance package only, serves `fs` / `node:fs` as a module that
// re-exports node:fs plus a `globSync` that throws when actually called. On Node 22+ it does nothing.
import fs from "node:fs";
import { register } from "node:module";

if (typeof fs.globSync !== "function") register("./fs-glob-shim-hooks.mjs", import.meta.url);
