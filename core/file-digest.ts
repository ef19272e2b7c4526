import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { createHash } from "./lazy-crypto.js";
import { readRegularFile } from "./bounded-read.js";
import { executedRuns, splitLoosely } from "./executed-words.js";
import { bunConfigFiles, runnerConfigFiles, scriptEntryDigest, scriptPins } from "./package-scripts.js";

/** Largest file whose content `keel trust` hashes; a larger one is pinned by its identity (see `fileDigest`). */
export const MAX_DIGEST_BYTES = 64 * 1024 * 1024;

/** Bytes one host hashes at most for trust pins, so a repository of huge scripts cannot slow every command down. */
export const DIGEST_BUDGET_BYTES = 256 * 1024 * 1024;

/** What is left of a host's hashing budget (`DIGEST_BUDGET_BYTES`), shared by every pin it computes. */
export interface DigestBudget {
  bytes: number;
}

/**
 * A pin of a file's content: `sha256:<hex>` for a regular file, or, for one over `MAX_DIGEST_BYTES`
 * (or past the budget), its identity `stat:<size>:<ino>:<ctime>` — the change time moves with every
 * write and no program can set it back, so a changed file still changes the pin (failing closed: so may a
 * mere `chmod`). Anything else is named: `directory`, `not a regular file (…)`, `unreadable (…)`.
 * Opens without blocking (a FIFO is never waited on) and reads in chunks; never throws.
 */
export function fileDigest(file: string, budget: DigestBudget = { bytes: Infinity }): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return `unreadable (${(error as NodeJS.ErrnoException).code ?? "error"})`;
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) return "directory";
    if (!st.isFile()) return "not a regular file";
    if (st.size > MAX_DIGEST_BYTES || st.size > budget.bytes) return `stat:${st.size}:${st.ino}:${st.ctimeMs}`;
    budget.bytes -= st.size;
    const hash = createHash("sha256");
    const chunk = Buffer.alloc(Math.min(st.size, 1024 * 1024) + 1);
    let total = 0;
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      // A file growing while it is read: pin its identity, which changes with every write.
      if (total > st.size) {
        const now = fstatSync(fd);
        return `stat:${now.size}:${now.ino}:${now.ctimeMs}`;
      }
      hash.update(chunk.subarray(0, n));
    }
    return `sha256:${hash.digest("hex")}`;
  } catch (error) {
    return `unreadable (${(error as NodeJS.ErrnoException).code ?? "error"})`;
  } finally {
    closeSync(fd);
  }
}

/** The pin of a path where no file is (nothing there, or a file where one of its folders should be). */
export const MISSING = "missing";

/** A file's `fileDigest`, or `MISSING`. */
function pinDigest(path: string, budget: DigestBudget): string {
  const digest = fileDigest(path, budget);
  return digest === "unreadable (ENOENT)" || digest === "unreadable (ENOTDIR)" ? MISSING : digest;
}

/** How many package scripts (or make recipes) deep `namedWorkspaceFiles` follows what a script runs (`npm run a` → `npm run b` → `node b.js`). */
export const MAX_SCRIPT_DEPTH = 4;

/** Largest makefile whose recipes are read for the scripts they run. */
const MAX_MAKEFILE_BYTES = 1024 * 1024;

/**
 * The workspace files the commands of a line run (see `executedWords`), with their `fileDigest`: the
 * script a hook runs, a server's entry, a binary, a makefile. Each is resolved against `cwd`; words leading
 * outside `root` (your system's programs) and folders are left out, so a line running no workspace
 * file pins as before; a script it runs that does not exist yet is pinned as `missing` (created later, it is a change). A package script the line runs (`npm run lint`) is pinned as
 * `package.json#scripts.lint` (see `scriptPins`), and what that script and a makefile's recipes run is
 * followed the same way, `MAX_SCRIPT_DEPTH` deep. What those files import or read is not covered.
 * `absent` collects the files a package manager would read if they were there (`.npmrc`, a nearer
 * package.json) that are not: left out of the pins (a `keel trust` of before stays valid; at the next
 * start one that appeared changes the line's files anyway), to be checked as `missing` before a later run.
 */
export function namedWorkspaceFiles(
  commands: readonly (readonly string[])[],
  cwd: string,
  root: string,
  budget: DigestBudget,
  absent?: string[],
): [string, string][] {
  const out: [string, string][] = [];
  const seen = new Set<string>();
  const visit = (commands: readonly (readonly string[])[], cwd: string, depth: number): void => {
    // A line that changes folder (`cd .claude/hooks && ./lint.sh`) may run its scripts from there:
    // each word is tried from every folder the line names (a file too many only pins a file too many).
    const dirs = [cwd, ...commands.filter((c) => c[0] === "cd" && c[1] !== undefined && c.length === 2).map((c) => resolve(cwd, c[1]!))];
    // `runs`: a file the line runs, pinned as `missing` when nothing is there yet (one created later, by a command of
    // the session say, is no script `keel trust` approved); a file a package manager only reads when present (`.npmrc`) is left
    // out then (the line's pin is as before), but named in `absent`: created during a session, it holds the line back.
    const pin = (path: string, runs = false): void => {
      const rel = relative(root, path);
      if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel) || seen.has(rel)) return;
      seen.add(rel);
      const digest = pinDigest(path, budget);
      if (digest === MISSING && !runs) absent?.push(rel);
      if (digest === "directory" || (digest === MISSING && !runs)) return;
      out.push([rel, digest]);
      if (depth < MAX_SCRIPT_DEPTH && /^(GNUmakefile|[Mm]akefile|.*\.mk)$/.test(basename(path))) visit(recipeCommands(path), dirname(path), depth + 1);
    };
    for (const argv of [...commands, ...pipedScripts(commands)]) {
      const runs = executedRuns(argv);
      // `bun --cwd web x.ts` runs web/x.ts, with web's bunfig.toml and .env files: that folder is tried too.
      const here = runs.dirs.length ? [...dirs, ...runs.dirs.flatMap((d) => dirs.map((dir) => resolve(dir, d)))] : dirs;
      for (const value of runs.files) {
        if (!value || value.includes("\0")) continue;
        for (const dir of isAbsolute(value) ? [cwd] : here) pin(resolve(dir, value), true);
      }
      // A runner's settings (`.npmrc`'s `script-shell`, `node-options`) change what it runs as a package script's do; pinned the same way.
      if (runs.runner) for (const dir of here) for (const file of runnerConfigFiles(dir, root)) pin(file);
      // bun's own settings (`bunfig.toml`'s `preload`) and the `.env` files it loads, likewise.
      if (runs.bun) for (const dir of here) for (const file of bunConfigFiles(dir, root)) pin(file);
      for (const run of runs.scripts)
        for (const script of dirs.flatMap((dir) => scriptPins(run, dir, root))) {
          const fresh = !seen.has(script.entry);
          if (fresh) {
            seen.add(script.entry);
            out.push([script.entry, script.digest]);
          }
          // Also for the same package's script from another folder of the line: the package.json files between that folder and it count too.
          for (const file of script.files) pin(file);
          if (fresh && depth < MAX_SCRIPT_DEPTH) for (const text of script.texts) visit(splitLoosely(text), script.dir, depth + 1);
        }
    }
  };
  visit(commands, cwd, 0);
  return out;
}

/** Shells, whose standard input is their script when no script is named (`cat x.sh | bash`). */
const SHELL_NAME = /^(ba|rba|z|da|k|mk|a)?sh$/;

/**
 * `cat x.sh | bash`: the files `cat` prints, read as the scripts of a shell the line pipes into (as
 * `bash x.sh`), when the line has a shell naming no script or `-c` text. Loose, as pins are: a file
 * too many only pins a file too many.
 */
function pipedScripts(commands: readonly (readonly string[])[]): string[][] {
  const stdinShell = commands.some((c) => SHELL_NAME.test(basename(c[0] ?? "")) && c.slice(1).every((a) => a.startsWith("-") && !/^-[a-zA-Z]*c/.test(a)));
  if (!stdinShell) return [];
  return commands
    .filter((c) => basename(c[0] ?? "") === "cat")
    .flatMap((c) =>
      c
        .slice(1)
        .filter((a) => !a.startsWith("-"))
        .map((file) => ["bash", file]),
    );
}

/** The commands of a makefile's recipes (its lines starting with a tab), split loosely; none when it cannot be read. */
function recipeCommands(file: string): string[][] {
  try {
    const recipes = readRegularFile(file, MAX_MAKEFILE_BYTES)
      .split("\n")
      .filter((line) => line.startsWith("\t"))
      .map((line) => line.replace(/^\t[@+-]*/, ""));
    return recipes.flatMap((line) => splitLoosely(line));
  } catch {
    return [];
  }
}

/**
 * The first of `pinned` (workspace files, relative to `root`, and package scripts such as
 * `package.json#scripts.lint`, with the digests `namedWorkspaceFiles` gave them) that no longer has
 * that digest, or undefined. Checked again right before what names them runs: a command of the same
 * session, a sandboxed one included, may have rewritten one since keel started. A file pinned by its
 * identity is compared by its identity again.
 */
export function changedPinnedFile(root: string, pinned: readonly (readonly [string, string])[]): string | undefined {
  for (const [file, digest] of pinned) {
    const now = scriptEntryDigest(root, file) ?? pinDigest(resolve(root, file), { bytes: digest.startsWith("stat:") ? 0 : Infinity });
    if (now !== digest) return file;
  }
  return undefined;
}
