import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { executedWords } from "./executed-words.js";
import { userFileProblem } from "./foreign-owner.js";
import { parentsProblem } from "./parent-folders.js";
import { privateGroupJudge } from "./private-group.js";
import { realOrSelf } from "./real-path.js";
import { inside } from "./tools/confine-path.js";

/** Most files outside its folder one hook command or server entry of a user-level plugin may run (more are refused: not checked). */
export const MAX_OUTSIDE_RUN_FILES = 32;

/** Where the files a user-level plugin's command runs are: the plugin's folder, the environment the command gets, and its working directory when known. */
export interface OutsideRunPlace {
  /** The plugin's folder (its files are checked by `userTreeProblem`). */
  root: string;
  /** The environment the command runs with: `~`, `$HOME`, `${VAR}` in a word are expanded from it. */
  env: NodeJS.ProcessEnv;
  /** The folder a relative path resolves in; undefined when keel cannot tell (a hook runs in the session's folder): relative paths are then left. */
  cwd?: string;
  /** False when no shell reads the words (an MCP server's `command` and `args`, already expanded): `~` and `$` are then taken as written. */
  shell?: boolean;
}

/**
 * Why a file that `commands` (the argv of each simple command a user-level plugin's hook line or MCP server entry
 * runs) run outside the plugin's folder may not run as yours, or undefined when none is refused: the files keel can
 * tell will run (`executedWords`: the program when written as a path, the script of a known interpreter, what its
 * options load) — with `~`, `$HOME` and other variables of `place.env` expanded, relative ones resolved in
 * `place.cwd` — that another user owns or may write (`userFileProblem`), or that lie in a folder another user may
 * rename entries of (`parentsProblem`), as the plugin's own files are judged. A program found on PATH (a bare
 * name) is not a file keel can tell; root's files in root's folders pass. A word keel cannot tell the value of (an
 * unset variable, `$(…)`) is left. More than `MAX_OUTSIDE_RUN_FILES` such files are refused (what cannot be checked
 * fails closed). Undefined when `owners` is (a platform without user ids). Never throws.
 */
export function outsideRunProblem(
  commands: readonly (readonly string[])[],
  place: OutsideRunPlace,
  owners: ReadonlySet<number> | undefined,
  judge = privateGroupJudge(),
): string | undefined {
  if (owners === undefined) return undefined;
  const root = realOrSelf(place.root);
  // A line that changes folder (`cd /opt/tools && bash x.sh`) may run its relative paths from there: each is tried from
  // every folder the line names (a file too many is only checked too).
  const dirs = commands.flatMap((c) => (c[0] === "cd" && c.length === 2 ? [filePath(c[1]!, place)] : [])).filter((d) => d !== undefined);
  const files = new Set<string>();
  for (const argv of commands)
    for (const word of executedWords(argv)) {
      const paths = [filePath(word, place), ...(isAbsolute(word) ? [] : dirs.map((d) => filePath(word, { ...place, cwd: d, shell: false })))];
      for (const path of paths) {
        if (path === undefined || inside(place.root, path) || inside(root, path)) continue;
        files.add(path);
        if (files.size > MAX_OUTSIDE_RUN_FILES) return `it runs more than ${MAX_OUTSIDE_RUN_FILES} files outside the plugin's folder, more than keel checks`;
      }
    }
  for (const file of files) {
    const problem = userFileProblem(file, owners, judge) ?? parentsProblem(file, owners, judge);
    if (problem !== undefined) return `it runs ${file}, outside the plugin's folder, and ${problem}`;
  }
  return undefined;
}

/** The absolute path a word names, with `~` and the variables of `env` expanded; undefined when keel cannot tell. */
function filePath(word: string, place: OutsideRunPlace): string | undefined {
  if (!word || word.includes("\0")) return undefined;
  if (place.shell === false) return isAbsolute(word) ? resolve(word) : place.cwd === undefined ? undefined : resolve(place.cwd, word);
  const home = place.env.HOME || homedir();
  let path = word.replace(/^~(?=\/|$)/, home);
  if (path.startsWith("~")) return undefined; // `~bob/x.sh`: another user's home, which keel does not look up
  let unknown = false;
  path = path.replace(/\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))/g, (_, braced?: string, bare?: string) => {
    const value = place.env[(braced ?? bare)!];
    if (value === undefined) unknown = true;
    return value ?? "";
  });
  if (unknown || path.includes("$") || path.includes("`")) return undefined;
  if (isAbsolute(path)) return resolve(path);
  return place.cwd === undefined ? undefined : resolve(place.cwd, path);
}
