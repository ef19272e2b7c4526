import { lstatSync } from "node:fs";
import { dirname, sep } from "node:path";
import { realOrSelf } from "../real-path.js";
import { inside } from "../tools/confine-path.js";

/**
 * The first symlink on the way to `path` (absolute) that lies inside the folder `realRoot` (a real path), or undefined:
 * one a sandboxed command writing there could replace or re-point. Never throws.
 */
export function linkInside(realRoot: string, path: string): string | undefined {
  const parts = path.split(sep);
  for (let i = 2; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join(sep);
    let stat;
    try {
      stat = lstatSync(prefix);
    } catch {
      return undefined;
    }
    if (stat.isSymbolicLink() && inside(realRoot, realOrSelf(dirname(prefix)))) return prefix;
  }
  return undefined;
}
