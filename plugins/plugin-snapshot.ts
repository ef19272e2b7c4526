import { createHash } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  readSync,
  renameSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { inside, MAX_DIGEST_BYTES, parseJsonText, PRIVATE_DIR_MODE, readRegularFile, realOrSelf } from "../core/index.js";
import type { PinnedLink } from "./plugin-folder-digest.js";
import { removeSnapshotDir } from "./prune-plugin-snapshots.js";

/** Where keel keeps the pinned copies of workspace code plugins: `$KEEL_HOME/state/code-plugins/`. */
export function snapshotsDir(keelHome: string): string {
  return join(keelHome, "state", "code-plugins");
}

/** What `pluginSnapshot` copies: a plugin folder (real path) as `pluginFolderDigest` pinned it at start. */
export interface SnapshotSource {
  /** The plugin folder's real path. */
  folder: string;
  /** Its `sha256:` folder digest (names the copy). */
  digest: string;
  /** Each regular file's pin, by `/`-separated path relative to `folder`. */
  files: ReadonlyMap<string, string>;
  links: ReadonlyMap<string, PinnedLink>;
  keelHome: string;
  /** The workspace root (real path): the copy must not lie inside it. */
  workspaceRoot: string;
}

/** The pinned copy's folder, or why there is none (`file` is absolute, for the diagnostic). */
export type Snapshot = { ok: true; dir: string } | { ok: false; file: string; reason: string };

/**
 * keel's own copy of exactly the pinned bytes of a workspace code plugin's folder, to import it
 * from: `$KEEL_HOME/state/code-plugins/<folder digest hex>-<keel install tag>/`, reused when it is
 * there (its mtime is touched, for pruning), else written: each file read once, its bytes hashed and
 * compared with its pin (a file changed since the start-up walk, or no longer a regular file, fails:
 * nothing is written), links recreated as relative links to the place inside the copy their walk
 * found, `node_modules/keel` linked to the running keel's package. Written into a temporary folder
 * next to it and renamed into place read-only (a concurrent keel that wins the rename is used).
 * Refused when the copy would lie inside the workspace (`$KEEL_HOME` there: Node would look up
 * packages in the workspace's `node_modules/` above it). Never throws.
 */
export function pluginSnapshot(src: SnapshotSource): Snapshot {
  const parent = snapshotsDir(src.keelHome);
  if (inside(src.workspaceRoot, realOrSelf(src.keelHome)))
    return {
      ok: false,
      file: src.keelHome,
      reason: `keel imports a workspace code plugin from its pinned copy under $KEEL_HOME (${src.keelHome}), which lies inside the workspace: Node would look up packages the copy imports in the workspace's node_modules/ folders, which sandboxed commands may write. Set KEEL_HOME outside the workspace`,
    };
  const keelRoot = keelPackageRoot();
  const tag = createHash("sha256")
    .update(keelRoot ?? "")
    .digest("hex")
    .slice(0, 12);
  // `.js` files of a folder without a package.json of its own took `"type": "module"` from the nearest one above it:
  // the copy has nothing above it, so it gets that one field (and a name of its own: it is read at every start).
  const esm = !src.files.has("package.json") && inheritedModuleType(src.folder);
  const dir = join(parent, `${src.digest.replace(/^sha256:/, "")}-${tag}${esm ? "-esm" : ""}`);
  try {
    if (lstatSync(dir).isDirectory()) {
      const now = new Date();
      utimesSync(dir, now, now);
      return { ok: true, dir };
    }
  } catch {
    // Not there yet: written below.
  }
  let tmp: string | undefined;
  try {
    mkdirSync(parent, { recursive: true, mode: PRIVATE_DIR_MODE });
    tmp = mkdtempSync(join(parent, ".tmp-"));
    for (const [rel, pin] of src.files) {
      const from = join(src.folder, rel);
      const bytes = readRegular(from);
      if (bytes === undefined || `sha256:${createHash("sha256").update(bytes).digest("hex")}` !== pin) {
        return { ok: false, file: from, reason: "it changed since keel checked the plugin folder at start" };
      }
      const to = join(tmp, rel);
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, bytes, { flag: "wx", mode: 0o444 });
    }
    for (const [rel, link] of src.links) {
      const from = join(src.folder, rel);
      if (readlinkSync(from) !== link.text) return { ok: false, file: from, reason: "the link changed since keel checked the plugin folder at start" };
      const to = join(tmp, rel);
      mkdirSync(dirname(to), { recursive: true });
      // Relative, through real folders of the copy only: it cannot lead out of it, whatever its text was (an absolute path into the workspace).
      symlinkSync(relative(dirname(to), join(tmp, link.target)) || ".", to);
    }
    if (esm) writeFileSync(join(tmp, "package.json"), '{ "type": "module" }\n', { flag: "wx", mode: 0o444 });
    if (keelRoot) {
      mkdirSync(join(tmp, "node_modules"), { recursive: true });
      symlinkSync(keelRoot, join(tmp, "node_modules", "keel"));
    }
    readOnly(tmp);
    try {
      renameSync(tmp, dir);
      tmp = undefined;
    } catch (error) {
      // Another keel wrote the same copy first: use it.
      if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw error;
    }
    return { ok: true, dir };
  } catch (error) {
    return {
      ok: false,
      file: tmp ?? parent,
      reason: `keel could not write its pinned copy of the folder (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    };
  } finally {
    if (tmp) removeSnapshotDir(tmp);
  }
}

/** The bytes of `file` when it is a regular file (not a link) of at most `MAX_DIGEST_BYTES`, read once; else undefined. Never throws. */
function readRegular(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_DIGEST_BYTES) return undefined;
    // One more byte than it holds: a file growing while it is read does not match its pin anyway.
    const buf = Buffer.alloc(st.size + 1);
    let len = 0;
    for (let n = 1; n > 0 && len < buf.length; len += n) n = readSync(fd, buf, len, buf.length - len, null);
    return buf.subarray(0, len);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Takes write permission from every file and folder under `dir` (links have none), deepest first. */
function readOnly(dir: string): void {
  const dirs = [dir];
  for (let i = 0; i < dirs.length; i++)
    for (const entry of readdirSync(dirs[i]!, { withFileTypes: true })) if (entry.isDirectory()) dirs.push(join(dirs[i]!, entry.name));
  for (const d of dirs.reverse()) chmodSync(d, 0o555);
}

/**
 * The running keel's package folder (the nearest folder above this module whose package.json is
 * named `keel`), for the copy's `node_modules/keel`: a plugin's `import … from "keel"` gets the keel that runs it. Undefined when not found.
 */
export function keelPackageRoot(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      if ((parseJsonText(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown } | null)?.name === "keel") return realOrSelf(dir);
    } catch {
      // No package.json here (or not JSON): look further up.
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * True when the nearest package.json above `folder` (as Node looks it up for a file in `folder`
 * without one of its own) says `"type": "module"`. Bounded (1 MiB) and never throws: an unreadable
 * or unparseable one counts as none, as Node would fail on it anyway.
 */
function inheritedModuleType(folder: string): boolean {
  for (let dir = dirname(folder); ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (lstatSync(file, { throwIfNoEntry: false }) !== undefined) {
      try {
        return (parseJsonText(readRegularFile(file, 1024 * 1024)) as { type?: unknown }).type === "module";
      } catch {
        return false;
      }
    }
    if (dirname(dir) === dir) return false;
  }
}
