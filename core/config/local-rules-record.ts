import { join } from "node:path";
import { readJsonState, updateJsonState } from "../state/json-file.js";
import { isPlainObject } from "./plain-object.js";

/** The restricting permission rules of one local config file, as written in it (`permissions.deny` and `permissions.ask`). */
export interface LocalRules {
  deny: string[];
  ask: string[];
}

/** The two restricting lists, in the order they are reported. */
export const RESTRICTING_LISTS = ["deny", "ask"] as const;

/** Local config files' rules by file (relative to the workspace root, `/` separators), as keel last saw or wrote them. */
export type LocalRulesByFile = Record<string, LocalRules>;

/** One workspace's entries in the record file. */
type RecordedFiles = Record<string, LocalRules & { at?: string }>;

/**
 * The record file's content: each workspace root's files, apart. Several roots only when their paths share
 * the hash (FNV-1a collides for paths made to, and a path is a folder name a repository can suggest): a record
 * written over another root's would drop the rules keel held there. Records written before roots were kept apart
 * are `{ root, files }` (read, and rewritten as `roots` on the next write).
 */
interface LocalRulesRecord {
  roots?: Record<string, RecordedFiles>;
  root?: string;
  files?: RecordedFiles;
}

/**
 * The file under `$KEEL_HOME` (`state/local-rules/<hash of the workspace root>.json`) recording the
 * deny and ask rules of the workspace's local config files as keel last saw or wrote them. Yours
 * (`$KEEL_HOME`), never the workspace's: a record the repository could commit would speak for
 * nothing. The hash is FNV-1a, computed here: `node:crypto` stays unloaded on the common path; roots that share
 * it share the file, each with its own entry (see LocalRulesRecord).
 */
export function localRulesFile(keelHome: string, root: string): string {
  return join(keelHome, "state", "local-rules", `${fnv1a64(root)}.json`);
}

/**
 * The recorded rules of the workspace at `root` (its own entry: other roots sharing the hash have
 * theirs). A missing record is empty; an unreadable or unparseable one throws StateError (the caller
 * must not overwrite it).
 */
export async function readLocalRules(keelHome: string, root: string): Promise<LocalRulesByFile> {
  const record = await readJsonState<unknown>(localRulesFile(keelHome, root), {});
  return cleanFiles(rootsOf(record).get(root));
}

/**
 * Most bytes the record's entries may take (16 MiB, estimated as written: a rule per line, indented). The record is
 * read by every command, and refused past MAX_STATE_TEXT_BYTES (64 MiB): local config files a repository ships in a
 * chain of folders (10 MiB each, keel reads every `.claude/settings.local.json` from the root down) would grow it past
 * that, and keel, unable to read it, would hold none of your rules. A file whose rules would not fit is not recorded
 * (its rules apply while they are in it, as any config's).
 */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/**
 * Rewrites the record under its lock, atomically: `update` gets the recorded rules and returns the
 * files to set (an empty pair of lists removes the file's entry), or undefined to leave the record
 * as it is. A file whose entry would grow the record past MAX_RECORD_BYTES keeps its entry as it is
 * (one in `always`, your own `keel config set` of one local file, only when its entry alone is larger); returns those files.
 * Throws StateError when the record cannot be read or written.
 */
export async function updateLocalRules(
  keelHome: string,
  root: string,
  update: (current: LocalRulesByFile) => LocalRulesByFile | undefined,
  always: readonly string[] = [],
): Promise<string[]> {
  return updateJsonState<unknown, string[]>(localRulesFile(keelHome, root), {}, (cur) => {
    const roots = rootsOf(cur);
    const files = cleanFiles(roots.get(root));
    const changes = update(files);
    if (changes === undefined) return { result: [] };
    const at = new Date().toISOString();
    const next: RecordedFiles = { ...files };
    let size = 0;
    for (const [other, entries] of roots) if (other !== root) size += filesBytes(cleanFiles(entries));
    size += filesBytes(files);
    const full: string[] = [];
    for (const [key, rules] of Object.entries(changes)) {
      const removed = !rules.deny.length && !rules.ask.length;
      const grows = removed ? 0 : entryBytes(key, rules) - (next[key] ? entryBytes(key, next[key]) : 0);
      // Your own write of one file has room of its own (as much again), so what a repository's files took cannot crowd it out.
      const fits = always.includes(key) ? entryBytes(key, rules) <= MAX_RECORD_BYTES : size + grows <= MAX_RECORD_BYTES;
      if (grows > 0 && !fits) {
        full.push(key);
        continue;
      }
      size += grows;
      if (removed) delete next[key];
      else next[key] = { deny: rules.deny, ask: rules.ask, at };
    }
    // Other roots' entries (roots sharing the hash) are kept as they are.
    roots.set(root, next);
    const value: LocalRulesRecord = { roots: Object.fromEntries(roots) as Record<string, RecordedFiles> };
    return { value, result: full };
  });
}

/** The bytes an entry takes in the record as written, or a little more: each rule on a line of its own, indented 10 blanks. */
function entryBytes(key: string, rules: LocalRules): number {
  let n = Buffer.byteLength(key) + 128;
  for (const rule of [...rules.deny, ...rules.ask]) n += Buffer.byteLength(JSON.stringify(rule)) + 16;
  return n;
}

function filesBytes(files: LocalRulesByFile): number {
  let n = 0;
  for (const [key, rules] of Object.entries(files)) n += entryBytes(key, rules);
  return n;
}

/** The entries of a record file by root, whether written with `roots` or before (`{ root, files }`). */
function rootsOf(record: unknown): Map<string, unknown> {
  const roots = new Map<string, unknown>();
  if (!isPlainObject(record)) return roots;
  if (typeof record.root === "string") roots.set(record.root, record.files);
  if (isPlainObject(record.roots)) for (const [root, files] of Object.entries(record.roots)) roots.set(root, files);
  return roots;
}

/** The rules of a record's `files`, keeping only lists of strings (a hand-edited record reads as far as it makes sense). */
function cleanFiles(files: unknown): LocalRulesByFile {
  const out: LocalRulesByFile = {};
  if (files === null || typeof files !== "object") return out;
  for (const [key, entry] of Object.entries(files as Record<string, unknown>)) {
    const e = (entry ?? {}) as Record<string, unknown>;
    const list = (v: unknown) => (Array.isArray(v) ? v.filter((r): r is string => typeof r === "string") : []);
    out[key] = { deny: list(e.deny), ask: list(e.ask) };
  }
  return out;
}

/** FNV-1a, 64 bits, of `text`'s UTF-8 bytes, as 16 hex digits. */
function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, "utf8")) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return hash.toString(16).padStart(16, "0");
}
