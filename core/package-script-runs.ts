import { commandAt, managerSyntax } from "./shell/package-runners.js";
import type { RunnerSink } from "./shell/command-runners.js";
import { baseName } from "./shell/unwrap-command.js";

/**
 * A package script a command runs (`npm run lint` → `{dir: "", name: "lint"}`), `dir` as written (`npm --prefix web run lint`);
 * `name` undefined when keel cannot tell which script the line runs (an option it cannot read before the script, a name that
 * is not literal): every script of the package is pinned then.
 */
export interface ScriptRun {
  dir: string;
  name?: string;
  /** The script runs in packages of a monorepo named by package (`npm -w NAME`, `--workspaces`, `pnpm -r`, `yarn workspace NAME`): all of them are pinned. */
  packages?: true;
}

/** The scripts a line runs (`runs`), and the files it names that run them (`npm --script-shell ./sh`). */
export interface ScriptRuns {
  runs: ScriptRun[];
  files: string[];
}

const INSTALL = ["install", "prepare"];
/** `pack` and `publish` run the packing scripts (`prepack`, `prepare`, `postpack`; publishing adds its own), `version` its version scripts. */
const PACK = ["prepack", "prepare", "postpack"];
const PUBLISH = ["prepublishOnly", ...PACK, "publish"];
const COMMON = { test: ["test"], t: ["test"], tst: ["test"], start: ["start"], stop: ["stop"], restart: ["restart", "stop", "start"] };

/** Subcommands that run scripts of their own name (`test`), or lifecycle scripts (`install` runs `install` and `prepare`); yarn's `""` is a bare `yarn`. */
const LIFECYCLE: Record<"npm" | "yarn" | "pnpm" | "bun", Readonly<Record<string, readonly string[]>>> = {
  npm: {
    ...COMMON,
    ...{ install: INSTALL, i: INSTALL, add: INSTALL, ci: INSTALL, rebuild: INSTALL, it: [...INSTALL, "test"], cit: [...INSTALL, "test"], link: INSTALL },
    ...{ pack: PACK, publish: PUBLISH, version: ["version"], diff: ["prepare"] },
  },
  yarn: { ...COMMON, "": INSTALL, install: INSTALL, add: INSTALL, pack: PACK, publish: PUBLISH, version: ["version"] },
  pnpm: { ...COMMON, install: INSTALL, i: INSTALL, add: INSTALL, it: [...INSTALL, "test"], "install-test": [...INSTALL, "test"], pack: PACK, publish: PUBLISH },
  bun: { install: INSTALL, i: INSTALL, add: INSTALL, a: INSTALL },
};

/** npm's options with a value keel reads (npm reads options anywhere on the line), the ones naming the package folder, and those naming packages. */
const NPM_VALUES = new Set(["--prefix", "-C", "-w", "--workspace", "--script-shell", "--userconfig", "--globalconfig", "--cache", "--registry", "--loglevel"]);
const NPM_DIRS = new Set(["--prefix", "-C"]);
const NPM_PACKAGES = new Set(["-w", "--workspace", "-ws", "--workspaces"]);
const NPM_RUN = new Set(["run", "run-script", "rum", "urn"]);

/** Options of yarn, pnpm (dashes left out, as nopt reads them) and bun naming the package folder, and those running the script in packages of a monorepo (pnpm's `-w`, the root, too). */
const DIRS = { yarn: new Set(["--cwd"]), pnpm: new Set(["C", "dir"]), bun: new Set(["--cwd"]) };
const PACKAGES = {
  yarn: new Set<string>(),
  pnpm: new Set(["r", "recursive", "filter", "F", "filter-prod", "w", "workspace-root"]),
  bun: new Set(["--filter", "-F"]),
};

/** Words that name a file rather than a script (`bun run x.ts`, `bun ./tool`). */
const FILE_LIKE = /\/|\.[cm]?[jt]sx?$/;
/** Words the shell may expand (`$X`, a pattern): which script they name is not known. */
const EXPANDS = /[$*?[\]{}~]/;
/** More commands than this read through one line (`yarn workspace a workspace b …`) name no script keel can tell. */
const MAX_HOPS = 8;

/** The manager `program` names: its last path component without `.cmd`/`.exe` or corepack's `@version`, yarn's other name `yarnpkg` as `yarn`. */
function managerName(program: string): string {
  const name = baseName(program)
    .replace(/\.(cmd|exe)$/, "")
    .replace(/^(npm|pnpm|yarn|yarnpkg)@.*$/, "$1");
  return name === "yarnpkg" ? "yarn" : name;
}

/** True when `program` is npm, yarn, pnpm or bun (`yarnpkg`, `yarn@1` as corepack names it, too). */
export function isPackageManager(program: string): boolean {
  return ["npm", "yarn", "pnpm", "bun"].includes(managerName(program));
}

/**
 * The package scripts a package manager's command line runs (`npm test`, `npm run lint`, `yarn lint`,
 * `pnpm run lint`, `bun run lint`; `npm install` runs the `install` and `prepare` scripts), and the
 * files it names that run them (`npm --script-shell ./sh`); undefined when `program` is not npm, yarn,
 * pnpm or bun, or its subcommand runs no script of the package (`npx`, `npm exec` are runners). yarn,
 * pnpm and bun lines are read with the option tables the deny rules read them with (package-runners.ts):
 * where those cannot tell the command word, or the script's name is not literal, the run names no
 * script (every script of the package is pinned).
 */
export function packageScriptRuns(program: string, args: readonly string[]): ScriptRuns | undefined {
  const name = managerName(program);
  if (name === "npm") return npmRuns(args);
  return name === "yarn" || name === "pnpm" || name === "bun" ? managerRuns(name, [...args]) : undefined;
}

/** npm: options anywhere (unknown ones are flags to nopt); the first `run` or lifecycle word starts the script, or any of them after an option keel does not read. */
function npmRuns(args: readonly string[]): ScriptRuns | undefined {
  let dir = "";
  let packages = false;
  let ambiguous = false;
  let unknownDir = false;
  const files: string[] = [];
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") break;
    if (a.startsWith("-") && a.length > 1) {
      const eq = a.indexOf("=");
      const option = eq === -1 ? a : a.slice(0, eq);
      const value = eq !== -1 ? a.slice(eq + 1) : NPM_VALUES.has(option) ? args[++i] : undefined;
      if (value !== undefined && NPM_DIRS.has(option)) [dir, unknownDir] = EXPANDS.test(value) ? [dir, true] : [value, unknownDir];
      if (value !== undefined && option === "--script-shell") files.push(value);
      if (NPM_PACKAGES.has(option)) packages = true;
      // An option of npm's with a value keel does not list (`--tag run lint`) may take the next word: each `run` or lifecycle word may start it.
      if (eq === -1 && !NPM_VALUES.has(option)) ambiguous = true;
      continue;
    }
    words.push(a);
  }
  const lifecycle = LIFECYCLE.npm;
  const starts = words.flatMap((w, k) => (NPM_RUN.has(w) || Object.hasOwn(lifecycle, w) || EXPANDS.test(w) ? [k] : []));
  const runs: ScriptRun[] = [];
  // `--prefix "$D"`: which package is not known either (the packages of the monorepo are pinned).
  const add = (name: string | undefined) =>
    runs.push({ dir, ...(name !== undefined && !unknownDir ? { name } : {}), ...(packages || unknownDir ? { packages: true as const } : {}) });
  for (const k of ambiguous ? starts : starts.slice(0, 1)) {
    const [command, next] = [words[k]!, words[k + 1]];
    // `npm $CMD`, `npm run $X`: which script is not known.
    if (EXPANDS.test(command) || (NPM_RUN.has(command) && next !== undefined && EXPANDS.test(next))) add(undefined);
    else if (NPM_RUN.has(command)) {
      if (next !== undefined && !FILE_LIKE.test(next)) add(next);
    } else for (const name of lifecycle[command]!) add(name);
  }
  return runs.length || files.length ? { runs: unique(runs), files } : undefined;
}

/** yarn, pnpm, bun: read as `packageManager` (package-runners.ts) reads them, with the same tables. */
function managerRuns(name: "yarn" | "pnpm" | "bun", args: string[]): ScriptRuns | undefined {
  const syntax = managerSyntax(name);
  const lifecycle = LIFECYCLE[name];
  const literal = (i: number) => !EXPANDS.test(args[i] ?? "");
  const sink: RunnerSink = { run: () => undefined, script: () => undefined, unresolved: () => undefined, oneWord: literal };
  let dir = "";
  let packages = false;
  let unknownDir = false;
  const seen = (option: string, value: string | undefined) => {
    const o = name === "pnpm" ? option.replace(/^-+/, "") : option;
    // nopt expands `-rC` to `-r -C` (one with a value ends it).
    const letters = name === "pnpm" && /^-[^-]/.test(option) ? [...o] : [o];
    if (letters.some((c) => PACKAGES[name].has(c)) || PACKAGES[name].has(o)) packages = true;
    if (value !== undefined && DIRS[name].has(o)) {
      if (EXPANDS.test(value)) unknownDir = true;
      else dir = value;
    }
  };
  const result = (names: readonly (string | undefined)[]): ScriptRuns | undefined => {
    const pack = packages || unknownDir ? { packages: true as const } : {};
    const runs = names.map((n): ScriptRun => ({ dir, ...(n !== undefined && !unknownDir ? { name: n } : {}), ...pack }));
    return runs.length ? { runs: unique(runs), files: [] } : undefined;
  };
  const script = (i: number) => {
    const word = args[i];
    if (word === undefined) return result([]);
    if (!literal(i)) return result([undefined]);
    return result(FILE_LIKE.test(word) ? [] : [word]);
  };
  let from = 0;
  const names: string[] = [];
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const at = commandAt(name, args, from, literal, sink, syntax.words, seen);
    // An option keel cannot read stands before the command word: whichever script it is, it is pinned.
    if (at === undefined) return result([...names, undefined]);
    const word = args[at] ?? "";
    if (!literal(at)) return result([...names, undefined]);
    if (word === "run") {
      const k = commandAt(`${name} run`, args, at + 1, literal, sink, syntax.run ?? syntax.words, seen);
      return k === undefined ? result([...names, undefined]) : script(k);
    }
    if (Object.hasOwn(lifecycle, word)) return result([...names, ...lifecycle[word]!]);
    if (name === "yarn" && word === "workspace") {
      packages = true;
      from = at + 2;
    } else if (name === "yarn" && word === "workspaces" && args[at + 1] === "run") {
      packages = true;
      return script(at + 2);
    } else if (name === "yarn" && word === "workspaces" && args[at + 1] === "foreach") {
      packages = true;
      const next = commandAt("yarn workspaces foreach", args, at + 2, literal, sink, syntax.foreach);
      if (next === undefined) return result([...names, undefined]);
      from = next;
    } else if (name === "pnpm" && ["recursive", "multi", "m"].includes(word)) {
      packages = true;
      from = at + 1;
    } else if (name === "pnpm" && word === "pm") {
      // pnpm 11 runs its own command; before, a script `pm`.
      names.push(word);
      from = at + 1;
    } else if (syntax.commands.has(word)) return result(names);
    // yarn 2+: `yarn packages/a lint` runs `yarn lint` in packages/a (a scoped name `@a/b` is a script or program).
    else if (name === "yarn" && /[\\/]/.test(word) && !/^@[^/\\]+\/[^/\\]+$/.test(word)) {
      dir = dir && !word.startsWith("/") ? `${dir}/${word}` : word;
      from = at + 1;
    } else return script(at);
  }
  return result([...names, undefined]);
}

/** `runs` without repeats. */
function unique(runs: ScriptRun[]): ScriptRun[] {
  const seen = new Set<string>();
  return runs.filter((r) => {
    const key = JSON.stringify([r.dir, r.name ?? null, r.packages ?? false]);
    return !seen.has(key) && Boolean(seen.add(key));
  });
}
