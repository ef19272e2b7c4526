/** The interpreters keel knows by name and how each reads its options (which options take a value, load code, give code inline): see executed-words.ts. */
import { baseName } from "./shell/unwrap-command.js";

/** How an interpreter reads its options: which take the next word, which run it, which give code inline. */
export interface Dialect {
  /** Options whose value is the next word (unless written `--opt=value`). */
  value: ReadonlySet<string>;
  /** Of those, the ones whose value is code that runs before the script (`node -r ./setup.js`), or decides what does (`node --env-file=.env`): pinned too. */
  loads: ReadonlySet<string>;
  /** Options giving the program inline (`node -e`, `python -c`): no script file follows. */
  code: ReadonlySet<string>;
  /** Options known to take no value; any other option may take the next word, which is then pinned too. */
  flag: (option: string) => boolean;
}

// An env file (`--env-file=.env`) is read before the script, and its NODE_OPTIONS (`--require ./x.js`) loads code: pinned as a module is.
const NODE_LOADS = ["-r", "--require", "--import", "--loader", "--experimental-loader", "--preload", "--env-file", "--env-file-if-exists"];
/** Node and the programs that run scripts as it does (tsx, ts-node, …). */
export const NODE: Dialect = {
  value: new Set([
    ...NODE_LOADS,
    "-C",
    "--conditions",
    "--input-type",
    "--title",
    "--inspect-port",
    "--redirect-warnings",
    "--disable-warning",
    "--watch-path",
    "--tsconfig",
    "--project",
    "-P",
    "--cwd",
  ]),
  loads: new Set(NODE_LOADS),
  code: new Set(["-e", "--eval", "-p", "--print"]),
  flag: (o) =>
    /^--(inspect(-brk|-wait)?|watch|test|no-[\w-]+|experimental-[\w-]+|enable-source-maps|expose-gc|trace-[\w-]+|preserve-symlinks(-main)?|abort-on-uncaught-exception|transpile-only|swc|esm|hot)$/.test(
      o,
    ),
};
// bun reads node's options, and `-c`/`--config FILE` names the bunfig.toml it reads instead of the folder's (its `preload` runs first).
const BUN: Dialect = {
  ...NODE,
  value: new Set([...NODE.value, "-c", "--config"]),
  loads: new Set([...NODE.loads, "-c", "--config"]),
};
/** The shells (and `source`, `.`). */
export const SHELL: Dialect = {
  value: new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]),
  loads: new Set(["--rcfile", "--init-file"]),
  code: new Set(),
  // Clusters of one-letter flags (`-eu`, `-lx`); a `-c` among them is handled before (its script is split).
  flag: (o) => /^[-+][a-zA-Z]+$/.test(o) && !/[oO]$/.test(o),
};
/** Python and PyPy. */
export const PYTHON: Dialect = {
  value: new Set(["-W", "-X", "-Q"]),
  loads: new Set(),
  code: new Set(["-c"]),
  flag: (o) => /^-[bBdEhiIOPqsSuvVx]+$/.test(o),
};
const OTHER: Dialect = { value: new Set(["-I", "-C", "-E", "-d", "-c", "-z"]), loads: new Set(["-r"]), code: new Set(["-e", "-E"]), flag: () => false };
const RUBY: Dialect = { ...OTHER, value: new Set(["-r", "-I", "-C", "-E"]), code: new Set(["-e"]) };
const PHP: Dialect = { ...OTHER, value: new Set(["-c", "-d", "-z", "-f"]), loads: new Set(["-f"]), code: new Set(["-r"]) };
const DENO: Dialect = {
  value: new Set(["-c", "--config", "--import-map", "--lock", "--cert", "--location", "--seed", "--preload"]),
  loads: new Set(["--preload"]),
  code: new Set(),
  flag: (o) => /^(-A|-r|-q|--allow-[\w-]+|--deny-[\w-]+|--reload|--quiet|--watch|--check|--no-[\w-]+|--unstable[\w-]*)$/.test(o),
};
const UV: Dialect = {
  value: new Set([
    "--with",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "--project",
    "--directory",
    "--package",
    "--extra",
    "--group",
    "--env-file",
    "--index",
    "--index-url",
    "--default-index",
    "--extra-index-url",
    "--from",
  ]),
  // Its env file sets the variables of what it runs (a `NODE_OPTIONS` or `BASH_ENV` there loads code), as node's does.
  loads: new Set(["--env-file"]),
  code: new Set(),
  flag: (o) => /^(--script|--no-project|--isolated|--frozen|--locked|--no-sync|--all-extras|--quiet|-q|--offline|--active)$/.test(o),
};

/** Interpreters (a trailing version is ignored: `python3.12`, `node20`) and how each reads its options. */
const INTERPRETERS: Record<string, Dialect> = {
  // `source x.sh` and `. x.sh` run the file in the shell itself.
  ...Object.fromEntries(["sh", "bash", "rbash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "source", "."].map((s) => [s, SHELL])),
  ...Object.fromEntries(["node", "nodejs", "tsx", "ts-node", "ts-node-esm", "esno", "vite-node"].map((s) => [s, NODE])),
  bun: BUN,
  ...Object.fromEntries(["python", "pypy"].map((s) => [s, PYTHON])),
  ruby: RUBY,
  perl: { ...OTHER, code: new Set(["-e", "-E"]) },
  php: PHP,
  lua: OTHER,
  luajit: OTHER,
  deno: DENO,
  uv: UV,
  go: OTHER,
  java: {
    value: new Set(["-jar", "-cp", "-classpath", "--class-path", "-p", "--module-path", "--add-modules"]),
    loads: new Set(["-jar"]),
    code: new Set(),
    flag: (o) => /^-(D|X|ea|da|verbose|server|client)/.test(o),
  },
};

/** Subcommands after which an interpreter names what it runs (`deno run main.ts`, `uv run tool.py`); its other subcommands run nothing of the line. */
export const RUN_SUBCOMMANDS: Record<string, ReadonlySet<string>> = {
  deno: new Set(["run", "serve", "test"]),
  uv: new Set(["run"]),
  bun: new Set(["run"]),
  tsx: new Set(["watch"]),
  go: new Set(["run"]),
};

/** The dialect of a program named `word` (by its last path component, without a trailing version), if it is an interpreter. */
export function dialectOf(word: string): [string, Dialect] | undefined {
  const name = baseName(word).replace(/(?<=[a-z])[\d.]+$/, "");
  return Object.hasOwn(INTERPRETERS, name) ? [name, INTERPRETERS[name]!] : undefined;
}
