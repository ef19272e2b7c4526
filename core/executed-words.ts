import { isPackageManager, packageScriptRuns, type ScriptRun } from "./package-script-runs.js";
import { programFileWords } from "./program-file-words.js";
import { dialectOf, NODE, PYTHON, RUN_SUBCOMMANDS, SHELL, type Dialect } from "./interpreter-dialects.js";
import { baseName, unwrapCommand } from "./shell/unwrap-command.js";

/**
 * The words of one command (its program and arguments, after quote removal) that name files it
 * runs: the program when written as a path (`./bin/server`, `$CLAUDE_PROJECT_DIR/hooks/x.sh`), and
 * for an interpreter the script it is given (`node server.js`, `bash -e .claude/hooks/lint.sh`, `uv
 * run tool.py`, `deno run main.ts`, `python -m pkg`) and the modules its options load first (`node -r
 * ./setup.js`). Wrappers are looked past (`/usr/bin/env node x.js`, `timeout 5 ./run`, `sh -c "…"`),
 * and so is a runner naming an interpreter (`npx tsx x.ts`, `uvx python x.py`). Files a command only
 * reads or writes (`prettier --write README.md`) are left out, or every edit to them would wait for a
 * review. Where an unknown option could take the next word, both that word and the next are named:
 * a file too many only pins a file too many, while a script left out could change unreviewed.
 */
export function executedWords(argv: readonly string[]): string[] {
  return executedRuns(argv).files;
}

/**
 * What one command runs: the files `executedWords` names, and the package scripts it runs (`npm
 * test`, `npm run lint`, `yarn lint`, `pnpm run lint`, `bun run lint`; see `packageScriptRuns`), whose
 * text lives in package.json and is pinned by `namedWorkspaceFiles`.
 */
export function executedRuns(argv: readonly string[]): { files: string[]; scripts: ScriptRun[]; runner: boolean; bun: boolean; dirs: string[] } {
  const sink: RunSink = { scripts: [], runner: false, bun: false, dirs: [] };
  const files = wordsRun(argv, 0, sink);
  return { files, scripts: sink.scripts, runner: sink.runner, bun: sink.bun, dirs: sink.dirs };
}

/** What `wordsRun` met besides files: the package scripts a line runs, and whether a package runner runs a package's program. */
interface RunSink {
  scripts: ScriptRun[];
  /** `npx tsx x.ts`, `npm exec`, `pnpm dlx`, `yarn dlx`, `bunx`: the runner reads the package folder's `.npmrc` (its `script-shell`, `node-options`) and friends. */
  runner: boolean;
  /** `bun x.ts`, `bun run lint`, `bunx tool`: bun reads the folder's `bunfig.toml` (whose `preload` runs first) and `.env` files itself. */
  bun: boolean;
  /** Folders an interpreter is told to run from (`bun --cwd web x.ts`, `ts-node --cwd web x.ts`): its script, `bunfig.toml` and `.env` files are read there, as written (relative to the line's folder). */
  dirs: string[];
}

/** Package runners (`npx`), and the subcommands of package managers that are (`npm exec`, `pnpm dlx`, `bun x`). */
const RUNNERS = new Set(["npx", "pnpx", "bunx"]);
const RUNNER_SUBCOMMANDS = new Set(["exec", "x", "dlx"]);

/** Programs that set variables for the command they run (`env NODE_OPTIONS=… node x.js`, `cross-env A=1 ./x.sh`). */
const SETS_ENV = new Set(["env", "cross-env", "cross-env-shell", "export"]);

/** `executedWords`, `depth` wrappers deep; the package scripts and runners met are added to `sink`. */
function wordsRun(argv: readonly string[], depth: number, sink: RunSink): string[] {
  if (depth > 8) return [];
  let start = 0;
  const out: string[] = [];
  // Leading assignments (`NODE_OPTIONS=--require=./x.js node …`, `BASH_ENV=./env.sh bash …`) can load code too.
  for (; start < argv.length && /^[A-Za-z_]\w*=/.test(argv[start]!); start++) out.push(...assignmentWords(argv[start]!));
  const [program, ...args] = argv.slice(start);
  if (!program) return out;
  if (program.includes("/")) out.push(program);
  const name = baseName(program);
  // Loosely: a subcommand word anywhere marks a runner (a config file too many only pins a file too many).
  if (RUNNERS.has(name) || (isPackageManager(program) && args.some((a) => RUNNER_SUBCOMMANDS.has(a)))) sink.runner = true;
  if (/^bunx?$/.test(name.replace(/(?<=[a-z])[\d.]+$/, ""))) sink.bun = true;
  if (SETS_ENV.has(name)) {
    // Assignments after `env` (`env BASH_ENV=./x.sh bash -c …`) load code as those before a command do.
    for (const a of args) if (/^[A-Za-z_]\w*=/.test(a)) out.push(...assignmentWords(a));
    if (name !== "env") {
      const k = args.findIndex((a) => !/^[A-Za-z_]\w*=/.test(a) && !a.startsWith("-"));
      return k === -1 || name === "export" ? out : [...out, ...wordsRun(args.slice(k), depth + 1, sink)];
    }
  }
  const programs = programFileWords(name, args);
  if (programs) return [...out, ...programs];
  const inner: string[][] = [];
  const texts: string[] = [];
  // A package runner's program (`npx -y @scope/server`) is a package name, not a path: the runner is read below.
  unwrapCommand([program, ...args], [], {
    command: (a, sameProgram) => void (sameProgram || inner.push(a)),
    script: (text) => texts.push(text),
    unresolved: () => undefined,
  });
  for (const text of texts) for (const words of splitLoosely(text)) out.push(...wordsRun(words, depth + 1, sink));
  // What a wrapper runs (`exec node server.js`, `env A=1 ./run.sh`) is read as its own command.
  if (inner.length) return [...out, ...wordsRun(inner[0]!, depth + 1, sink)];
  const dialect = dialectOf(program);
  const pm = packageScriptRuns(program, args);
  if (pm) {
    sink.scripts.push(...pm.runs);
    out.push(...pm.files);
    if (!dialect) return out;
  }
  if (dialect) {
    // Loosely: a `--cwd` anywhere moves what it reads (a folder too many only pins files too many).
    if (dialect[1].value.has("--cwd")) sink.dirs.push(...cwdOptions(args));
    return [...out, ...interpreterWords(dialect, args)];
  }
  // A runner (`npx tsx x.ts`, `pnpm exec tsx x.ts`, `uvx python x.py`, `corepack yarn lint`, `dotenv -- npm test`): the first
  // word naming an interpreter or a package manager starts what it runs.
  const k = args.findIndex((a) => !a.startsWith("-") && (dialectOf(a) !== undefined || isPackageManager(a)));
  return k === -1 ? out : [...out, ...wordsRun(args.slice(k), depth + 1, sink)];
}

/** The values of `--cwd DIR` / `--cwd=DIR` in `args`. */
function cwdOptions(args: readonly string[]): string[] {
  return args.flatMap((a, i) => (a === "--cwd" && args[i + 1] !== undefined ? [args[i + 1]!] : a.startsWith("--cwd=") ? [a.slice(6)] : []));
}

/** The script (and loaded modules) of an interpreter given `args`, read with its dialect. */
function interpreterWords([name, d]: [string, Dialect], args: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  const run = Object.hasOwn(RUN_SUBCOMMANDS, name) ? RUN_SUBCOMMANDS[name] : undefined;
  if (run && args[0] !== undefined && run.has(args[0])) i = 1;
  else if (name === "deno" || name === "uv" || name === "go") {
    // `deno main.ts` runs it; `deno fmt`, `uv sync`, `go build` run nothing of the line.
    if (args[0] === undefined || /^[a-z]+$/.test(args[0])) return out;
  }
  let ambiguous = false;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--" || a === "-") {
      // `-` is standard input: `bash - < x.sh` (the redirected file is added after the words, see `namedWorkspaceFiles`).
      ambiguous = false;
      continue;
    }
    if (/^[-+]./.test(a) && (a.startsWith("-") || d === SHELL)) {
      if (d.code.has(a)) return out;
      // `bash -c 'node x.js'`: its script's commands were read already (see `executedWords`).
      if (d === SHELL && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a)) return out;
      const eq = a.indexOf("=");
      const option = eq === -1 ? a : a.slice(0, eq);
      if (eq !== -1) {
        if (d.loads.has(option)) out.push(a.slice(eq + 1));
        ambiguous = false;
      } else if (d.value.has(a)) {
        if (d.loads.has(a) && args[i + 1] !== undefined) out.push(args[i + 1]!);
        i++;
        ambiguous = false;
      } else if (d === PYTHON && a === "-m") {
        // `python -m pkg.tool` runs pkg/tool.py (or pkg/tool/__main__.py) from its folder.
        const mod = (args[i + 1] ?? "").split(".").join("/");
        return mod ? [...out, `${mod}.py`, `${mod}/__main__.py`] : out;
      } else ambiguous = !d.flag(a);
      continue;
    }
    // `uv run python tool.py`: the word run is an interpreter itself.
    const nested = dialectOf(a);
    if (nested) return [...out, a, ...interpreterWords(nested, args.slice(i + 1))];
    out.push(a);
    if (!ambiguous) return out;
    ambiguous = false;
  }
  return out;
}

/**
 * The files an assignment before a command makes it load: `BASH_ENV=./env.sh`, `NODE_OPTIONS="--require ./x.js"`,
 * npm's `npm_config_script_shell=./sh` (the shell every package script runs in), its `.npmrc` files and its `npm_config_node_options` (any case, `-` or `_`).
 */
function assignmentWords(word: string): string[] {
  const eq = word.indexOf("=");
  const [name, value] = [word.slice(0, eq), word.slice(eq + 1)];
  if (name === "BASH_ENV" || name === "ENV" || NPM_CONFIG_FILES.test(name)) return [value];
  // npm's `node-options` setting (`npm_config_node_options`) is the NODE_OPTIONS of what npm and npx start.
  if (name !== "NODE_OPTIONS" && !/^npm_config_node[-_]options$/i.test(name)) return [];
  return interpreterWords(["node", NODE], [...value.split(/\s+/).filter(Boolean), "-e", ""]);
}

/** npm settings from the environment that name a program or config file (`npm_config_script_shell`, `NPM_CONFIG_USERCONFIG`). */
const NPM_CONFIG_FILES = /^npm_config_(script[-_]shell|userconfig|globalconfig)$/i;

/** A shell script's commands split loosely at operators, then at blanks and quotes: a word too many only pins a file too many. */
export function splitLoosely(script: string): string[][] {
  return script
    .split(/[;&|()\n`]+/)
    .map((part) => part.split(/[\s"'<>]+/).filter(Boolean))
    .filter((words) => words.length);
}
