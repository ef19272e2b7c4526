import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";

/** Links followed by `realTarget` before it gives up (the kernel's own limit is 40). */
const MAX_LINKS = 40;

/**
 * Where `abs` really leads: its deepest existing ancestor resolved through symlinks, plus the rest
 * as written. A dangling symlink on the way is followed to where a write through it would land
 * (its target, resolved as `confinePath` resolves it), so a link `notes.md → ../.git/hooks/x`
 * whose target does not exist yet still leads into `.git`. Never throws.
 */
export function realTarget(abs: string, depth = 0): string {
  for (let probe = abs; ; probe = dirname(probe)) {
    try {
      const real = realpathSync.native(probe);
      return probe === abs ? real : resolve(real, relative(probe, abs));
    } catch {
      const link = depth < MAX_LINKS ? linkTarget(probe) : undefined;
      if (link !== undefined) return realTarget(probe === abs ? link : resolve(link, relative(probe, abs)), depth + 1);
      if (dirname(probe) === probe) return abs;
    }
  }
}

/** The absolute target of `path` when it is a symlink (here: one that does not resolve), else undefined. */
function linkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? resolve(dirname(path), readlinkSync(path)) : undefined;
  } catch {
    return undefined;
  }
}

/** The real path of `path`, or `path` itself when it cannot be resolved. Never throws. */
export function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
