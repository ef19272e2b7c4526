import { realpathSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { errorMessage } from "../errors.js";
import { estimateText } from "../model/token-estimate.js";
import { realOrSelf } from "../real-path.js";
import { inside } from "../tools/confine-path.js";
import { openFileInside } from "../tools/open-inside.js";

/** Instruction file names looked for in each directory, in this order. */
export const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md", "GEMINI.md", "KEEL.md"] as const;
/** Files whose `@path` imports are followed (Claude Code and Gemini CLI import syntax). */
const IMPORTING = new Set(["CLAUDE.md", "GEMINI.md"]);
/** Most characters kept of one file; the rest is cut with a note. */
export const MAX_INSTRUCTION_CHARS = 64 * 1024;
/** Most files loaded (imports included). */
const MAX_FILES = 32;
/** Deepest chain of `@` imports followed (Claude Code's limit). */
const MAX_IMPORT_DEPTH = 5;

/** One instruction file as it reaches the system prompt. */
export interface InstructionFile {
  /** Where it was read (real path). */
  path: string;
  /** How it is named in the prompt and in `keel context`: relative to its root, `~keel/` for the user level. */
  shown: string;
  level: "user" | "workspace";
  text: string;
  /** The file whose `@` import brought it in. */
  importedFrom?: string;
  /** What contributed it, when not the workspace or user directory itself (`gemini extension NAME`). */
  source?: string;
  truncated: boolean;
  tokens: number;
}

/** What was found, and what was skipped and why. */
export interface Instructions {
  files: InstructionFile[];
  notes: string[];
}

/** Where to look: the user-level directory, and the directories from `root` down to `cwd`. */
export interface InstructionPlaces {
  /** `$KEEL_HOME` (its `AGENTS.md` only). */
  userDir?: string;
  /** The boundary: the workspace root (or the managed worktree the session runs in). */
  root: string;
  /** The session's working directory, inside `root`. */
  cwd: string;
  /** Instruction files plugins contribute (Gemini CLI extensions' context files), each contained in its plugin's folder. */
  contributed?: ContributedInstructions[];
  /** Why a file (real path) may not reach the model — a read deny or ask rule (see readRefusal) — or undefined. */
  refuse?: (path: string) => string | undefined;
  /** The text as the model may see it: the credentials tool results hide as `***` (see `host.resultSecrets`). */
  redact?: (text: string) => string;
}

/** Instruction files one plugin contributes. */
export interface ContributedInstructions {
  /** The plugin's folder: every file must really lie inside it. */
  root: string;
  files: string[];
  level: InstructionFile["level"];
  /** Shown with the file (`gemini extension NAME`). */
  source: string;
  /** Where `shown` paths are relative to: `$KEEL_HOME` for user level, the workspace root otherwise. */
  shownFrom: string;
}

/**
 * Loads the project instructions: `$KEEL_HOME/AGENTS.md`, then the files plugins contribute (Gemini CLI
 * extensions' context files, each confined to its extension's folder), then `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`
 * and `KEEL.md` of the workspace root and of each directory down to `cwd` — nearest last. `@path`
 * imports of CLAUDE.md / GEMINI.md are followed (relative to the importing file, depth ≤ 5, cycles
 * cut). Every file must really lie inside its root (a symlink leading outside, e.g. to a secret, is
 * skipped with a note), be a regular file (opened without blocking) and is cut at 64 KiB. The same
 * real file is loaded once (`CLAUDE.md` → `AGENTS.md` symlinks are common). A file `refuse` names a rule
 * for (a read deny rule: `@.env` must not smuggle what `read_file(.env)` denies) is skipped with a note. Never throws.
 */
export async function loadInstructions(places: InstructionPlaces): Promise<Instructions> {
  const out: Instructions = { files: [], notes: [] };
  const seen = new Set<string>();
  const load = async (
    root: string,
    abs: string,
    level: InstructionFile["level"],
    depth: number,
    importedFrom?: string,
    from?: { source: string; shownFrom: string },
  ): Promise<void> => {
    const shown = shownPath(from?.shownFrom ?? root, abs, level);
    if (out.files.length >= MAX_FILES) return void out.notes.push(`${shown}: not loaded (more than ${MAX_FILES} instruction files)`);
    let real: string;
    try {
      real = realpathSync.native(abs);
    } catch {
      if (importedFrom) out.notes.push(`${shown} (imported by ${importedFrom}): not found`);
      return;
    }
    if (!inside(root, real) && !inside(realOrSelf(root), real))
      return void out.notes.push(
        `${shown}: leads outside ${from ? `the folder of ${from.source}` : level === "user" ? "the user-level directory" : "the workspace"}; not loaded`,
      );
    if (seen.has(real)) return;
    seen.add(real);
    const refused = places.refuse?.(real);
    if (refused) return void out.notes.push(`${shown}: not loaded (${refused} keeps it from the model)`);
    let read: { text: string; truncated: boolean };
    try {
      read = await readBounded(root, real, shown, places.redact);
    } catch (error) {
      return void out.notes.push(`${shown}: not loaded (${errorMessage(error)})`);
    }
    const { text, truncated } = read;
    out.files.push({ path: real, shown, level, text, importedFrom, ...(from ? { source: from.source } : {}), truncated, tokens: estimateText(text) });
    // CLAUDE.md / GEMINI.md import, and so do the files they import (recursively)
    if (!importedFrom && !IMPORTING.has(basenameOf(abs))) return;
    for (const ref of importsOf(text)) {
      if (depth >= MAX_IMPORT_DEPTH) {
        out.notes.push(`${shown}: import @${ref} not followed (imports nest deeper than ${MAX_IMPORT_DEPTH})`);
        continue;
      }
      if (ref.startsWith("~")) {
        out.notes.push(
          `${shown}: import @${ref} not followed (only files inside ${level === "user" ? "the user-level directory" : "the workspace"} are imported)`,
        );
        continue;
      }
      await load(root, resolve(dirname(real), ref), level, depth + 1, shown, from);
    }
  };
  if (places.userDir) await load(places.userDir, join(places.userDir, "AGENTS.md"), "user", 0);
  for (const c of places.contributed ?? []) for (const file of c.files) await load(c.root, file, c.level, 0, undefined, c);
  for (const dir of dirsDown(places.root, places.cwd)) for (const name of INSTRUCTION_FILES) await load(places.root, join(dir, name), "workspace", 0);
  return out;
}

/** The system prompt section for the loaded files (empty when there are none). */
export function instructionsSection(files: readonly InstructionFile[]): string {
  if (!files.length) return "";
  const parts = files.map((f) => {
    const origin = f.importedFrom ? ` (imported by ${f.importedFrom})` : f.source ? ` (from ${f.source})` : "";
    const cut = f.truncated ? `\n[… cut at ${MAX_INSTRUCTION_CHARS} characters]` : "";
    return `## ${f.shown}${origin}\n\n${f.text.trim()}${cut}`;
  });
  return `# Project instructions\n\nInstruction files of the user and of this project, the nearest last (it takes precedence where they differ):\n\n${parts.join("\n\n")}`;
}

/** The directories from `root` down to `cwd`, root first; only `root` when `cwd` is not inside it. */
function dirsDown(root: string, cwd: string): string[] {
  if (!inside(root, cwd)) return [root];
  const rel = relative(root, cwd);
  const dirs = [root];
  if (rel) for (const part of rel.split(sep)) dirs.push(join(dirs.at(-1)!, part));
  // keel's own state and git's are never instruction sources
  return dirs.filter(
    (d) =>
      !relative(root, d)
        .split(sep)
        .some((p) => p === ".keel" || p === ".git"),
  );
}

/** `@path` references outside code spans and fenced blocks: `@` at a word start followed by a path. */
function importsOf(text: string): string[] {
  const refs: string[] = [];
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const plain = line.replace(/`[^`]*`/g, "");
    for (const m of plain.matchAll(/(?:^|\s)@((?:\.{0,2}\/|~\/)?[\w.\-/]*[\w\-/])/g)) {
      const ref = m[1]!;
      // `@scope/pkg`-like words without a file extension or slash-relative start are not imports
      if (/\.[A-Za-z0-9]+$/.test(ref) || ref.startsWith("./") || ref.startsWith("../") || ref.startsWith("~/")) refs.push(ref);
    }
  }
  return refs;
}

/** The start of the file (MAX_INSTRUCTION_CHARS), with `redact` applied before the cut: a cut through a secret would show its start. */
async function readBounded(root: string, real: string, shown: string, redact?: (text: string) => string): Promise<{ text: string; truncated: boolean }> {
  const handle = await openFileInside(root, real, shown);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Error("not a regular file");
    // UTF-8 takes at most 4 bytes a character: read enough for MAX_INSTRUCTION_CHARS, then cut by characters
    const buf = Buffer.alloc(Math.min(st.size, MAX_INSTRUCTION_CHARS * 4));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const decoded = buf
      .subarray(0, bytesRead)
      .toString("utf8")
      .replace(/^\uFEFF/, "");
    const full = redact ? redact(decoded) : decoded;
    const truncated = full.length > MAX_INSTRUCTION_CHARS || st.size > buf.length;
    return { text: truncated ? full.slice(0, MAX_INSTRUCTION_CHARS) : full, truncated };
  } finally {
    await handle.close();
  }
}

function shownPath(root: string, abs: string, level: InstructionFile["level"]): string {
  const rel = relative(root, abs) || ".";
  return level === "user" ? `~keel/${rel}` : rel;
}

function basenameOf(p: string): string {
  return p.slice(p.lastIndexOf(sep) + 1);
}
