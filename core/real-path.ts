import { realpathSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";

/** Where `abs` really leads: its deepest existing ancestor resolved through symlinks, plus the rest as written. Never throws. */
export function realTarget(abs: string): string {
  for (let probe = abs; ; probe = dirname(probe)) {
    try {
      const real = realpathSync.native(probe);
      return probe === abs ? real : resolve(real, relative(probe, abs));
    } catch {
      if (dirname(probe) === probe) return abs;
    }
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
