import { lstatSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { ToolError } from "../errors.js";
import { realOrSelf } from "../real-path.js";
import { inside } from "../tools/confine-path.js";

/** Most folders one sandbox makes mount points of (each costs three bwrap arguments). */
export const MAX_PINNED_PARENTS = 256;

/**
 * The folders between the writable boundary `root` and each of `paths` (kept read-only or hidden inside it),
 * shallowest first, as real paths: `bwrapArgs` binds each over itself, so it is a mount point, which a
 * sandboxed command cannot rename or remove (EBUSY). Otherwise `mv sub sub2` would carry the read-only
 * or hiding mount of `sub/keelhome` along and free its path: a command could then write your config there
 * (read-only), or a later command read the secret at `sub2/.env` (hidden). `paths` are real paths
 * (`readOnly` and `hidden` are); a path outside the boundary, missing, or the boundary itself needs none,
 * nor does a folder inside `under` (read-only already: `.git`, `.keel`, the `readOnly` folders).
 * Throws ToolError(`precondition_failed`) past MAX_PINNED_PARENTS (the argument list stays bounded).
 */
export function pinnedParents(root: string, paths: readonly string[], under: readonly string[]): string[] {
  const real = realOrSelf(root);
  const out = new Set<string>();
  for (const path of paths) {
    if (path === real || !inside(real, path) || lstatSync(path, { throwIfNoEntry: false }) === undefined) continue;
    const parts = relative(real, path).split(sep);
    for (let i = 1; i < parts.length; i++) {
      const dir = join(real, ...parts.slice(0, i));
      if (!under.some((ro) => inside(ro, dir))) out.add(dir);
    }
  }
  if (out.size > MAX_PINNED_PARENTS)
    throw new ToolError(
      `The sandbox cannot keep the folders it keeps read-only or hidden inside the workspace in place: they lie in ${out.size} folders, more than ${MAX_PINNED_PARENTS}. Nothing was run. Hide fewer, shallower paths (sandbox.denyRead), or set KEEL_HOME outside the workspace.`,
      "precondition_failed",
    );
  return [...out].sort((a, b) => a.split(sep).length - b.split(sep).length);
}
