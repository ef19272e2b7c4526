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
  for (let probe = resolvableAncestor(abs); ; probe = dirname(probe)) {
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

/** Bytes of the longest path the system resolves, with its NUL (Linux's PATH_MAX; others' are shorter). */
export const PATH_MAX = 4096;

/**
 * `abs`, or, when it is too long for the system to resolve (PATH_MAX bytes or more: every realpath, stat and
 * readlink of it fails), its nearest ancestor that is not: where a walk up from `abs` looking for what exists
 * can start with the same result. Found in one pass, so a path of any length a model sends costs at most
 * PATH_MAX steps per ancestor (walking up from a path of 200,000 segments took minutes: every probe of it
 * copied the whole path). Never throws.
 */
export function resolvableAncestor(abs: string): string {
  if (abs.length * 3 < PATH_MAX) return abs;
  // Bytes as the system gets them (UTF-8; a lone surrogate as U+FFFD), counted in one pass; cut at a `/` of the string
  // itself, so the ancestor is a prefix of `abs` as written.
  let bytes = 0;
  let cut = 0;
  for (let i = 0; i < abs.length; i++) {
    const c = abs.charCodeAt(i);
    if (c === 0x2f) cut = i;
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (abs.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
    if (bytes >= PATH_MAX) return cut === 0 ? "/" : abs.slice(0, cut);
  }
  return abs;
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
