import { readFileSync } from "node:fs";

/**
 * keel's version from its own package.json, found by walking up from this module (it runs from
 * `bin/` in tests, `dist/bin/` when built, `dist/cli/` or `dist/cli/chunks/` when bundled); reads one small file, loads nothing else.
 * A leading byte order mark is skipped (as `parseJsonText` does; not imported, to load nothing else). Never throws: "unknown" when the file cannot be read.
 */
export function keelVersion(): string {
  for (const up of ["../package.json", "../../package.json", "../../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), "utf8").replace(/^\uFEFF/, "")) as { name?: string; version?: string } | null;
      if (pkg?.name === "keel" && typeof pkg.version === "string") return pkg.version;
    } catch {
      // not at this depth: try the next one
    }
  }
  return "unknown";
}
