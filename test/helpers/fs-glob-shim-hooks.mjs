// Module hooks for fs-glob-shim.mjs (runs on the loader thread; see that file).
const SHIM = "keel-fs-shim:fs";
const SOURCE = `import fs from "node:fs";
export * from "node:fs";
export default fs;
export function globSync() {
  throw new Error("fs.globSync needs Node 22 or later (stubbed by keel's test helper fs-glob-shim.mjs)");
}
`;

/** Redirects `fs` imported from the conformance package to the shim. */
export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL?.includes("/@modelcontextprotocol/conformance/"))
    return { url: SHIM, shortCircuit: true };
  return next(specifier, context);
}

/** Serves the shim's source. */
export async function load(url, context, next) {
  if (url === SHIM) return { format: "module", source: SOURCE, shortCircuit: true };
  return next(url, context);
}
