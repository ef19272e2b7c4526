import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { executedRuns, splitLoosely } from "./executed-words.js";
import { userFileProblem } from "./foreign-owner.js";
import { missingFileProblem } from "./missing-file.js";
import { parentsProblem } from "./parent-folders.js";
import { privateGroupJudge } from "./private-group.js";
import { realOrSelf } from "./real-path.js";
import { unwrapCommand } from "./shell/unwrap-command.js";
import { inside } from "./tools/confine-path.js";

/** Most files outside its folder one hook command or server entry of a user-level plugin may run (more are refused: not checked). */
export const MAX_OUTSIDE_RUN_FILES = 32;

/** Where the files a user-level plugin's command runs are: the plugin's folder, the environment the command gets, and its working directory when known. */
export interface OutsideRunPlace {
  /** The plugin's folder (its files are checked by `userTreeProblem`). */
  root: string;
  /** The environment the command runs with: `~`, `$HOME`, `${VAR}` in a word are expanded from it. */
  env: NodeJS.ProcessEnv;
  /**
   * The folder a relative path resolves in; undefined when keel cannot tell (a hook runs in the session's folder): relative
   * paths are then left. A server's own `cwd` (with `shell: false`) outside the plugin is judged as a file it runs is.
   */
  cwd?: string;
  /** False when no shell reads the words (an MCP server's `command` and `args`, already expanded): `~` and `$` are then taken as written. */
  shell?: boolean;
}

/** A word whose file keel cannot tell: the shell makes it from something keel does not know (a variable set on the line, `$(…)`, a pattern). */
const UNTOLD: unique symbol = Symbol("untold");
type Where = string | undefined | typeof UNTOLD;

/**
 * Why a file that `commands` (the argv of each simple command a user-level plugin's hook line or MCP server entry
 * runs) run outside the plugin's folder may not run as yours, or undefined when none is refused: the files keel can
 * tell will run (`executedWords`: the program when written as a path, the script of a known interpreter, what its
 * options load; the package.json whose script a package manager runs) — with `~`, `$HOME` and other variables of `place.env` expanded, relative ones resolved in
 * `place.cwd` and in each folder the line changes to (`cd`, `pushd`, `env -C`) — that another user owns or may
 * write (`userFileProblem`), or that lie in a folder another user may rename entries of (`parentsProblem`), as the
 * plugin's own files are judged. A program found on PATH (a bare name) is not a file keel can tell; root's files in
 * root's folders pass. A word of a shell line whose file keel cannot tell — a variable `place.env` does not set (it
 * may be set earlier on the line: `F=/opt/x.sh; bash $F`), `$(…)`, a pattern (`/opt/*.sh`, `{a,b}`), `~user` — is
 * refused, as is more than `MAX_OUTSIDE_RUN_FILES` such files: what cannot be checked fails closed. A relative path
 * with no folder known (a hook runs in the session's folder) is left. Undefined when `owners` is (a platform without
 * user ids). Never throws.
 */
export function outsideRunProblem(
  commands: readonly (readonly string[])[],
  place: OutsideRunPlace,
  owners: ReadonlySet<number> | undefined,
  judge = privateGroupJudge(),
): string | undefined {
  if (owners === undefined) return undefined;
  // No shell reads an MCP server's words, but one it starts may (`sh -c 'cd /opt/tools && node $HOME/x.js'`): its script is a shell line.
  if (place.shell === false)
    for (const script of shellScripts(commands)) {
      const problem = outsideRunProblem(splitLoosely(script), { ...place, shell: true }, owners, judge);
      if (problem !== undefined) return problem;
    }
  const root = realOrSelf(place.root);
  // The folder a server starts in is read by what it runs (npx its node_modules/.bin and .npmrc, python -m its modules).
  if (place.shell === false && place.cwd !== undefined && !inside(place.root, place.cwd) && !inside(root, place.cwd)) {
    const problem = userFileProblem(place.cwd, owners, judge) ?? parentsProblem(place.cwd, owners, judge);
    if (problem !== undefined)
      return `it starts in ${place.cwd}, outside the plugin's folder, whose files what it runs may read and run (npx its node_modules/.bin and .npmrc, python -m its modules), and ${problem}`;
  }
  // A line that changes folder (`cd /opt/tools && bash x.sh`) may run its relative paths from there: each is tried from
  // every folder the line names (a file too many is only checked too).
  const dirs = changedDirs(commands, place);
  const files = new Set<string>();
  for (const argv of commands)
    for (const word of runFiles(argv)) {
      const paths: Where[] = [
        filePath(word, place),
        ...(isAbsolute(word) ? [] : dirs.map((d) => (d === UNTOLD ? UNTOLD : filePath(word, { ...place, cwd: d })))),
      ];
      for (const path of paths) {
        if (path === UNTOLD)
          return `it runs \`${cut(word)}\`, whose file keel cannot tell (a variable its environment does not set, \`$(…)\`, a pattern, \`~user\`, or a folder the line changes to that keel cannot tell), so it cannot check who may change it; write the path out`;
        if (path === undefined || inside(place.root, path) || inside(root, path)) continue;
        files.add(path);
        if (files.size > MAX_OUTSIDE_RUN_FILES) return `it runs more than ${MAX_OUTSIDE_RUN_FILES} files outside the plugin's folder, more than keel checks`;
      }
    }
  for (const file of files) {
    const problem = userFileProblem(file, owners, judge) ?? parentsProblem(file, owners, judge) ?? missingFileProblem(file, owners, judge);
    if (problem !== undefined) return `it runs ${file}, outside the plugin's folder, and ${problem}`;
  }
  return undefined;
}

/** The files one command runs (`executedRuns`): those `executedWords` names, and the package.json of each package script it runs (`npm run x`, `npm --prefix DIR test`). */
function runFiles(argv: readonly string[]): string[] {
  const { files, scripts } = executedRuns(argv);
  return [...files, ...scripts.map((s) => (s.dir ? `${s.dir.replace(/\/+$/, "")}/package.json` : "package.json"))];
}

/** The scripts the commands give a shell (`sh -c '…'`, through wrappers: `env A=1 bash -c '…'`). */
function shellScripts(commands: readonly (readonly string[])[]): string[] {
  const scripts: string[] = [];
  for (const argv of commands)
    if (argv.length > 0) unwrapCommand([...argv], [], { command: () => undefined, script: (text) => void scripts.push(text), unresolved: () => undefined });
  return scripts;
}

/**
 * The folders a shell line changes to (`cd [-L|-P|-e|-@] [--] DIR`, `pushd DIR`, `env -C DIR`/`--chdir`), in order; a
 * relative one resolves in `place.cwd` and in each found before it. `UNTOLD` for one keel cannot tell.
 */
function changedDirs(commands: readonly (readonly string[])[], place: OutsideRunPlace): Where[] {
  if (place.shell === false) return [];
  const dirs: Where[] = [];
  for (const argv of commands) {
    const dir = changedDir(argv);
    if (dir === undefined) continue;
    const bases = isAbsolute(dir) ? [place.cwd] : [place.cwd, ...dirs];
    for (const base of bases) dirs.push(base === UNTOLD ? (UNTOLD as Where) : filePath(dir, { ...place, cwd: base }));
  }
  return dirs;
}

/** The folder one command changes to, as written; undefined when it is none (or `cd` alone, `cd -`: home and the last folder). */
function changedDir(argv: readonly string[]): string | undefined {
  const [name, ...args] = argv;
  if (name === "cd" || name === "pushd") {
    let i = 0;
    for (; i < args.length && /^-[LPe@n]+$/.test(args[i]!); i++);
    if (args[i] === "--") i++;
    const dir = args[i];
    return dir === undefined || dir === "-" || /^[+-]\d+$/.test(dir) ? undefined : dir;
  }
  if (name === "env")
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === "-C" || a === "--chdir") return args[i + 1];
      if (a.startsWith("--chdir=")) return a.slice(8);
      if (/^-C./.test(a)) return a.slice(2);
      if (!a.startsWith("-") && !a.includes("=")) return undefined;
    }
  return undefined;
}

/** The absolute path a word names, with `~` and the variables of `env` expanded; undefined for a relative one with no folder known, `UNTOLD` when the shell makes it from what keel does not know. */
function filePath(word: string, place: OutsideRunPlace): Where {
  if (!word || word.includes("\0")) return undefined;
  if (place.shell === false) return isAbsolute(word) ? physical(word) : place.cwd === undefined ? undefined : physical(`${place.cwd}/${word}`);
  const home = place.env.HOME || homedir();
  let path = word.replace(/^~(?=\/|$)/, home);
  if (path.startsWith("~")) return UNTOLD; // `~bob/x.sh` (another user's home, which keel does not look up), `~+`, `~-`
  let unknown = false;
  path = path.replace(/\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))/g, (_, braced?: string, bare?: string) => {
    const value = place.env[(braced ?? bare)!];
    if (value === undefined) unknown = true;
    return value ?? "";
  });
  // What is left after expansion was written so: the shell still expands `$(…)`, `` ` ``, patterns and braces in it.
  if (unknown || /[$`*?[{(]/.test(word.replace(/\$(?:\{[A-Za-z_]\w*\}|[A-Za-z_]\w*)/g, ""))) return UNTOLD;
  if (isAbsolute(path)) return physical(path);
  return place.cwd === undefined ? undefined : physical(`${place.cwd}/${path}`);
}

/**
 * The absolute `path` as the system resolves it: a `..` goes up from where the folder before it really is, so
 * `<plugin>/lib/../x.sh`, with `lib` a link to /opt/tools/sub, is /opt/tools/x.sh (lexically it would be in the plugin).
 */
function physical(path: string): string {
  if (!/(^|\/)\.\.(\/|$)/.test(path)) return resolve(path);
  let at = "/";
  for (const part of path.split("/")) if (part !== "" && part !== ".") at = part === ".." ? dirname(realOrSelf(at)) : join(at, part);
  return at;
}

/** A word as shown in a message: on one line, at most 200 characters. */
function cut(word: string): string {
  const line = word.replace(/\s+/g, " ");
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
