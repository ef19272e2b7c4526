import { dirname, join } from "node:path";
import { PATTERN_CHARS } from "../sandbox/sandbox-config.js";
import { isPlainObject } from "./plain-object.js";

/** One `sandbox.filesystem.denyRead` entry keel could not use, with why. */
export interface SkippedDenyRead {
  index: number;
  reason: string;
}

/**
 * Claude Code's `sandbox.filesystem.denyRead` (paths its sandbox hides from Bash) as keel's
 * `sandbox.denyRead` paths: they only restrict, so a project's settings count untrusted too.
 * Claude's prefixes: `//x` is the absolute `/x`, `~/x` is under your home, `/x` is under the
 * settings file's folder, `./x` and `x` are under the project root (the folder holding `.claude/`:
 * `scope`, relative to the workspace root, for a nested one). A trailing `/**` or `/*` names
 * the folder (hiding all of it covers what the pattern covers). Other patterns cannot be hidden by
 * a sandbox that names each path: they are skipped, with why. Pure; never throws.
 */
export function claudeDenyRead(settings: Record<string, unknown>, settingsFile: string, scope?: string): { paths: string[]; skipped: SkippedDenyRead[] } {
  const sandbox = settings.sandbox;
  const filesystem = isPlainObject(sandbox) ? sandbox.filesystem : undefined;
  const list = isPlainObject(filesystem) ? filesystem.denyRead : undefined;
  const paths: string[] = [];
  const skipped: SkippedDenyRead[] = [];
  if (!Array.isArray(list)) return { paths, skipped };
  list.forEach((entry: unknown, index) => {
    if (typeof entry !== "string" || entry.trim() === "") return skipped.push({ index, reason: "not a path" });
    const path = entry.trim().replace(/\/\*\*?$/, "") || "/";
    if (PATTERN_CHARS.test(path))
      return skipped.push({ index, reason: "a pattern: keel's sandbox hides the paths it names, so list them in keel's sandbox.denyRead one by one" });
    if (path === "/" || path === "//") return skipped.push({ index, reason: "the whole filesystem: nothing could run" });
    if (path.split("/").includes("..")) return skipped.push({ index, reason: "a path with `..`" });
    if (path.startsWith("//")) paths.push(path.slice(1));
    else if (path === "~" || path.startsWith("~/")) paths.push(path);
    else if (path.startsWith("/")) paths.push(join(dirname(settingsFile), path));
    else {
      const rel = path.replace(/^(\.\/)+/, "") || ".";
      paths.push(scope ? (rel === "." ? scope : `${scope}/${rel}`) : rel);
    }
  });
  return { paths, skipped };
}
