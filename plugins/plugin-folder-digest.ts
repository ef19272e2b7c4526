import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileDigest, inside, MAX_DIGEST_BYTES, realOrSelf } from "../core/index.js";

/** Most files (and links), and most folders, a workspace code plugin's folder may hold outside `node_modules/` and `.git/` for `keel trust` to pin it. */
export const MAX_PLUGIN_FILES = 1000;

/** Most bytes the files of one plugin folder may hold in all (each file is also bounded by `MAX_DIGEST_BYTES`). */
export const MAX_PLUGIN_BYTES = MAX_DIGEST_BYTES;

/** Names the walk leaves out, at any depth: a plugin's dependencies and git's own files. */
const SKIPPED = new Set(["node_modules", ".git"]);

/** A symlink of a plugin folder: its target text as pinned, and where it led when walked (relative to the folder, `/`-separated; for a dangling link, where its text names). */
export interface PinnedLink {
  text: string;
  target: string;
}

/**
 * The digest of a plugin folder with each regular file's own `sha256:` digest (`files`) and each
 * symlink (`links`), keyed by path relative to the folder's real path, `/`-separated; or why it could
 * not be computed (`file` is absolute, for the diagnostic).
 */
export type FolderDigest =
  { ok: true; digest: string; files: ReadonlyMap<string, string>; links: ReadonlyMap<string, PinnedLink> } | { ok: false; file: string; reason: string };

/**
 * One `sha256:` digest over every regular file under the plugin folder `root` (symlinks resolved):
 * each file's relative path and `fileDigest`, sorted by path, with each symlink's target text. Skips
 * `node_modules/` and `.git/` at any depth, and `keelState` (the workspace's `.keel`, which keel itself
 * writes). Fails closed, naming the file: past `MAX_PLUGIN_FILES` files or folders or `MAX_PLUGIN_BYTES`, a file over
 * `MAX_DIGEST_BYTES` or unreadable, a FIFO, socket or device, a symlink leading outside `root`, a line break in a name
 * or a link's target (each entry is one line of the digest). Never throws.
 */
export function pluginFolderDigest(root: string, keelState?: string): FolderDigest {
  let base: string;
  try {
    base = realpathSync.native(root);
  } catch (error) {
    return { ok: false, file: root, reason: `the folder cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  }
  // As the walk names it: the real parent folder, the name as is.
  const state = keelState === undefined ? undefined : join(realOrSelf(dirname(keelState)), basename(keelState));
  const lines: string[] = [];
  const files = new Map<string, string>();
  const links = new Map<string, PinnedLink>();
  const budget = { bytes: MAX_PLUGIN_BYTES };
  const dirs = [base];
  // Folders count too: a tree of a million empty folders must not make every start walk it.
  let folders = 0;
  for (let dir = dirs.pop(); dir !== undefined; dir = dirs.pop()) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (error) {
      return { ok: false, file: dir, reason: `the folder cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})` };
    }
    for (const name of names) {
      const path = join(dir, name);
      // Skipped whatever they are: a `node_modules` link to a monorepo's shared folder, a submodule's `.git` file.
      if (SKIPPED.has(name) || path === state) continue;
      const rel = relative(base, path).split(sep).join("/");
      // One line per entry: a line break in a name would let two different folders write the same lines (one digest, one copy).
      if (name.includes("\n")) return { ok: false, file: path, reason: "its name holds a line break, which keel's pin cannot tell apart; rename it" };
      let entry: string;
      try {
        const st = lstatSync(path);
        if (st.isDirectory()) {
          if (++folders > MAX_PLUGIN_FILES) return { ok: false, file: path, reason: `the plugin folder holds more than ${MAX_PLUGIN_FILES} folders` };
          dirs.push(path);
          continue;
        }
        if (lines.length >= MAX_PLUGIN_FILES) return { ok: false, file: path, reason: `the plugin folder holds more than ${MAX_PLUGIN_FILES} files` };
        if (st.isSymbolicLink()) {
          const target = readlinkSync(path);
          if (target.includes("\n"))
            return { ok: false, file: path, reason: "it is a symbolic link whose target holds a line break, which keel's pin cannot tell apart; remove it" };
          const real = linkTarget(path, target);
          if (!inside(base, real)) return { ok: false, file: path, reason: `it is a symbolic link leading to ${real}, outside the plugin folder` };
          links.set(rel, { text: target, target: relative(base, real).split(sep).join("/") });
          entry = `link:${target}`;
        } else {
          const digest = fileDigest(path, budget);
          if (digest.startsWith("stat:"))
            return {
              ok: false,
              file: path,
              reason:
                st.size > MAX_DIGEST_BYTES ? `it is larger than ${MAX_DIGEST_BYTES} bytes` : `the plugin folder holds more than ${MAX_PLUGIN_BYTES} bytes`,
            };
          if (!digest.startsWith("sha256:")) return { ok: false, file: path, reason: `it cannot be pinned (${digest})` };
          entry = digest;
        }
      } catch (error) {
        return { ok: false, file: path, reason: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})` };
      }
      if (!entry.startsWith("link:")) files.set(rel, entry);
      lines.push(`${rel}\0${entry}\n`);
    }
  }
  // Byte order of the relative paths (each line starts with its path, ended by NUL), so the digest does not depend on readdir's order.
  lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash("sha256");
  for (const line of lines) hash.update(line);
  return { ok: true, digest: `sha256:${hash.digest("hex")}`, files, links };
}

/** Where a symlink leads: followed when it resolves; as written when it dangles (what it names could be created later, so that must be inside the folder). */
function linkTarget(link: string, target: string): string {
  try {
    return realpathSync.native(link);
  } catch {
    return resolve(dirname(link), target);
  }
}
