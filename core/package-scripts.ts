import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { createHash } from "./lazy-crypto.js";
import { readRegularFile } from "./bounded-read.js";
import { baseName } from "./shell/unwrap-command.js";
import { inside } from "./tools/confine-path.js";
import { workspacePackageDirs, workspacePatterns } from "./workspace-packages.js";

/** A package script a command runs (`npm run lint` → `{dir: "", name: "lint"}`), `dir` as written (`npm --prefix web run lint`). */
export interface ScriptRun {
  dir: string;
  name: string;
  /** The script runs in packages of a monorepo named by package (`npm -w NAME`, `--workspaces`, `pnpm -r`, `yarn workspace NAME`): all of them are pinned. */
  packages?: true;
}

/** How one package manager reads its command line. */
interface Manager {
  /** Options whose value is the next word (unless written `--opt=value`). */
  value: ReadonlySet<string>;
  /** Of those, the ones naming the package folder. */
  dir: ReadonlySet<string>;
  /** Subcommands naming the script next (`run lint`). */
  run: ReadonlySet<string>;
  /** Subcommands that run scripts of their own name (`test`), or lifecycle scripts (`install` runs `install` and `prepare`). */
  lifecycle: Readonly<Record<string, readonly string[]>>;
  /** Word names a script unless it is one of these built-in subcommands (npm runs only `run`/lifecycle subcommands). */
  builtins?: ReadonlySet<string>;
  /** Options that run the script in packages of a monorepo (by name, or all of them). */
  packages: ReadonlySet<string>;
  /** Options count after the script name too (npm reads them anywhere; the others pass them to the script). */
  optionsAnywhere?: true;
}

const INSTALL = ["install", "prepare"];
/** `pack` and `publish` run the packing scripts (`prepack`, `prepare`, `postpack`; publishing adds its own), `version` its version scripts. */
const PACK = ["prepack", "prepare", "postpack"];
const PUBLISH = ["prepublishOnly", ...PACK, "publish"];
const COMMON_LIFECYCLE = { test: ["test"], t: ["test"], tst: ["test"], start: ["start"], stop: ["stop"], restart: ["restart", "stop", "start"] };
const PNPM_YARN_BUILTINS = (
  "add audit autoclean bin cache check config constraints create dedupe deploy dlx doctor env exec explain fetch generate-lock-entry global help import info " +
  "init install i licenses link list login logout ls node npm outdated owner pack patch patch-commit plugin policy prune publish rebuild recursive remove rm " +
  "root search server set setup stage store tag team unlink unplug up update upgrade upgrade-interactive version versions why workspace workspaces"
).split(" ");
const MANAGERS: Record<string, Manager> = {
  npm: {
    value: new Set(["--prefix", "-C", "-w", "--workspace", "--script-shell", "--userconfig", "--globalconfig", "--cache", "--registry", "--loglevel"]),
    dir: new Set(["--prefix", "-C"]),
    packages: new Set(["-w", "--workspace", "-ws", "--workspaces"]),
    run: new Set(["run", "run-script", "rum", "urn"]),
    lifecycle: {
      ...COMMON_LIFECYCLE,
      install: INSTALL,
      i: INSTALL,
      add: INSTALL,
      ci: INSTALL,
      rebuild: INSTALL,
      it: [...INSTALL, "test"],
      cit: [...INSTALL, "test"],
      link: INSTALL,
      pack: PACK,
      publish: PUBLISH,
      version: ["version"],
      diff: ["prepare"],
    },
    optionsAnywhere: true,
  },
  yarn: {
    value: new Set(["--cwd", "--modules-folder", "--cache-folder", "--mutex", "--network-timeout", "--registry", "--global-folder", "--link-folder"]),
    dir: new Set(["--cwd"]),
    packages: new Set(),
    run: new Set(["run"]),
    lifecycle: { ...COMMON_LIFECYCLE, "": INSTALL, install: INSTALL, add: INSTALL, pack: PACK, publish: PUBLISH, version: ["version"] },
    builtins: new Set(PNPM_YARN_BUILTINS),
  },
  pnpm: {
    value: new Set(["-C", "--dir", "--filter", "-F", "--workspace-dir", "--reporter", "--loglevel"]),
    dir: new Set(["-C", "--dir"]),
    packages: new Set(["-r", "--recursive", "--filter", "-F"]),
    run: new Set(["run", "run-script"]),
    lifecycle: { ...COMMON_LIFECYCLE, install: INSTALL, i: INSTALL, add: INSTALL, pack: PACK, publish: PUBLISH },
    builtins: new Set(PNPM_YARN_BUILTINS),
  },
  bun: {
    value: new Set(["--cwd", "-c", "--config", "--filter", "-F", "--env-file", "-r", "--preload"]),
    dir: new Set(["--cwd"]),
    packages: new Set(["--filter", "-F"]),
    run: new Set(["run"]),
    lifecycle: { install: INSTALL, i: INSTALL, add: INSTALL },
    // `bun test` is bun's own test runner, `bun x.ts` runs a file (pinned as the script of an interpreter).
    builtins: new Set(["test", "x", "build", "pm", "repl", "exec", "upgrade", "create", ...PNPM_YARN_BUILTINS]),
  },
};

/** True when `program` is npm, yarn, pnpm or bun (by its last path component, `.cmd`/`.exe` left out; `yarnpkg` is yarn). */
export function isPackageManager(program: string): boolean {
  return Object.hasOwn(MANAGERS, managerName(program));
}

/** The manager `program` names: its last path component without `.cmd`/`.exe`, yarn's other name `yarnpkg` as `yarn`. */
function managerName(program: string): string {
  const name = baseName(program).replace(/\.(cmd|exe)$/, "");
  return name === "yarnpkg" ? "yarn" : name;
}

/** Words that name a file rather than a script (`bun run x.ts`, `bun ./tool`). */
const FILE_LIKE = /\/|\.[cm]?[jt]sx?$/;

/**
 * The package scripts a package manager's command line runs (`npm test`, `npm run lint`, `yarn lint`,
 * `pnpm run lint`, `bun run lint`; `npm install` runs the `install` and `prepare` scripts), and the
 * files it names that run them (`npm --script-shell ./sh`); undefined when `program` is not npm, yarn,
 * pnpm or bun, or its subcommand runs no script of the package (`npx`, `npm exec` are runners).
 */
export function packageScriptRuns(program: string, args: readonly string[]): { runs: ScriptRun[]; files: string[] } | undefined {
  const name = managerName(program);
  const m = Object.hasOwn(MANAGERS, name) ? MANAGERS[name] : undefined;
  if (!m) return undefined;
  let dir = "";
  let packages = false;
  let ambiguous = false;
  const files: string[] = [];
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") break;
    if (a.startsWith("-") && a.length > 1) {
      const eq = a.indexOf("=");
      const option = eq === -1 ? a : a.slice(0, eq);
      const value = eq !== -1 ? a.slice(eq + 1) : m.value.has(option) ? args[++i] : undefined;
      if (value !== undefined && m.dir.has(option)) dir = value;
      if (value !== undefined && option === "--script-shell") files.push(value);
      if (m.packages.has(option)) packages = true;
      // An option keel does not know may take the next word (`yarn --foo bar lint`): the word after is tried too.
      if (eq === -1 && !m.value.has(option) && !words.length) ambiguous = true;
      continue;
    }
    words.push(a);
    // `yarn workspace NAME lint`, `yarn workspaces foreach -A run lint`: the script comes later.
    if (m === MANAGERS.yarn && /^workspaces?$/.test(words[0]!)) {
      const rest = args.slice(i + 1).filter((w) => !w.startsWith("-"));
      const name = words[0] === "workspace" ? (rest[1] === "run" ? rest[2] : rest[1]) : rest[rest.indexOf("run") + 1];
      return name === undefined || (rest.indexOf("run") === -1 && words[0] === "workspaces") ? undefined : { runs: [{ dir, name, packages: true }], files };
    }
    if (words.length === 3 && !m.optionsAnywhere) break;
  }
  // npm reads options anywhere, and its other subcommands run no script: the first `run` or lifecycle word starts it.
  const starts = m.optionsAnywhere ? [words.findIndex((w) => m.run.has(w) || Object.hasOwn(m.lifecycle, w))] : ambiguous ? [0, 1] : [0];
  const names = new Set(starts.flatMap((k) => (k === -1 ? [] : scriptsOf(m, words[k] ?? "", words[k + 1]))));
  if (!names.size && !files.length) return undefined;
  return { runs: [...names].map((name) => ({ dir, name, ...(packages ? { packages: true as const } : {}) })), files };
}

/** The scripts subcommand `command` (then `next`) of manager `m` runs. */
function scriptsOf(m: Manager, command: string, next: string | undefined): readonly string[] {
  if (m.run.has(command)) return next === undefined || FILE_LIKE.test(next) ? [] : [next];
  if (Object.hasOwn(m.lifecycle, command)) return m.lifecycle[command]!;
  return m.builtins && command !== "" && !m.builtins.has(command) && !FILE_LIKE.test(command) ? [command] : [];
}

/** Largest package.json whose scripts keel reads for a pin. */
const MAX_PACKAGE_JSON_BYTES = 16 * 1024 * 1024;

/** What one package script pins: its entry name and digest, the texts that run, the folder they run in, and files that change how they run. */
export interface ScriptPin {
  /** `package.json#scripts.lint`, or `web/package.json#scripts.lint`, relative to the workspace root. */
  entry: string;
  digest: string;
  /** The script and its `pre`/`post` scripts, as they run. */
  texts: string[];
  /** The package folder (absolute): the scripts run there. */
  dir: string;
  /** Files of the package folder that change how the scripts run (`.npmrc`'s `script-shell`, yarn's `yarnPath` release and plugins, `.pnpmfile.cjs`), npm's default `start` (`server.js`), and the package.json files a folder between the line's and the package's would hold (created, npm would run theirs): pinned, `missing` when absent. */
  files: string[];
}

/**
 * The pins of package script `run` for a line running in `cwd`: in the nearest package.json from
 * `cwd` (or its `dir`) up to `root`, as the package manager finds it (none when that folder is outside
 * `root`); for a run in packages of a monorepo, in each of its packages that declares the script or its
 * `pre`/`post` script (see `workspacePackageDirs`). The digest covers the texts of `pre<name>`, `<name>`
 * and `post<name>` (null when absent), not the rest of package.json (a dependency bump is no change); a
 * missing or unparsable package.json is pinned as such, so a line keeps its pin until one appears or is
 * fixed. Never throws.
 */
export function scriptPins(run: ScriptRun, cwd: string, root: string): ScriptPin[] {
  const start = resolve(cwd, run.dir);
  if (!inside(root, start)) return [];
  const nearest = (from: string, found: (dir: string) => boolean): string | undefined => {
    for (let dir = from; ; dir = dirname(dir)) {
      if (found(dir)) return dir;
      if (dir === root || !inside(root, dirname(dir))) return undefined;
    }
  };
  const dir = nearest(start, (d) => existsSync(join(d, "package.json"))) ?? start;
  // A package.json created later between `start` and the one found would be the package the manager runs instead.
  const nearer: string[] = [];
  for (let d = start; d !== dir && inside(dir, d); d = dirname(d)) nearer.push(join(d, "package.json"));
  if (!run.packages) {
    const pin = scriptPinIn(dir, run.name, root);
    return [{ ...pin, files: [...pin.files, ...nearer] }];
  }
  const top = nearest(start, (d) => workspacePatterns(d).length > 0) ?? dir;
  const pins = [top, ...workspacePackageDirs(top)].map((d) => scriptPinIn(d, run.name, root));
  return pins.filter((p, i) => i === 0 || p.texts.length || !p.digest.startsWith("sha256:"));
}

/** The pin of script `name` of the package.json in `dir`, with what changes how it runs there. */
function scriptPinIn(dir: string, name: string, root: string): ScriptPin {
  const file = join(dir, "package.json");
  const entry = `${relative(root, file)}#scripts.${name}`;
  const read = scriptTexts(file, name);
  const rc = [".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", ...(name === "start" ? ["server.js"] : [])].map((f) => join(dir, f));
  rc.push(...yarnCode(dir).map((f) => resolve(dir, f)));
  if (typeof read === "string") return { entry, digest: read, texts: [], dir, files: rc };
  const digest = `sha256:${createHash("sha256").update(JSON.stringify(read)).digest("hex")}`;
  return { entry, digest, texts: read.filter((t): t is string => typeof t === "string"), dir, files: rc };
}

/** The digest `scriptPins` gave `entry` (`<path>/package.json#scripts.<name>`, relative to `root`) now, or undefined when `entry` names no script. */
export function scriptEntryDigest(root: string, entry: string): string | undefined {
  const m = /^(.*package\.json)#scripts\.(.*)$/s.exec(entry);
  if (!m) return undefined;
  const read = scriptTexts(resolve(root, m[1]!), m[2]!);
  return typeof read === "string" ? read : `sha256:${createHash("sha256").update(JSON.stringify(read)).digest("hex")}`;
}

/** `[pre<name>, <name>, post<name>]` of package.json `file` (null when absent), or why it cannot be read (`unreadable (ENOENT)`, `not JSON`). */
function scriptTexts(file: string, name: string): unknown[] | string {
  let value: unknown;
  try {
    value = JSON.parse(readRegularFile(file, MAX_PACKAGE_JSON_BYTES));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return error instanceof SyntaxError ? "not JSON" : `unreadable (${code ?? "not a regular file of at most 16 MB"})`;
  }
  const scripts = value !== null && typeof value === "object" && "scripts" in value ? (value as { scripts: unknown }).scripts : undefined;
  const table = scripts !== null && typeof scripts === "object" && !Array.isArray(scripts) ? (scripts as Record<string, unknown>) : {};
  return [`pre${name}`, name, `post${name}`].map((k) => (Object.hasOwn(table, k) ? table[k] : null));
}

/**
 * The code files yarn runs named by the package folder's settings: the release `.yarnrc.yml`'s
 * `yarnPath` (or yarn 1's `.yarnrc` `yarn-path`) names, and the plugins its `plugins` list loads
 * (`- path: .yarn/plugins/…cjs`), which every yarn command runs.
 */
function yarnCode(dir: string): string[] {
  const read = (file: string): string => {
    try {
      return readRegularFile(join(dir, file), 1024 * 1024);
    } catch {
      return "";
    }
  };
  const berry = read(".yarnrc.yml");
  const out: string[] = [];
  const release = /^yarnPath:\s*["']?([^"'\n#]+?)["']?\s*(?:#.*)?$/m.exec(berry)?.[1];
  if (release) out.push(release);
  for (const m of berry.matchAll(/^\s*-?\s*path:\s*["']?([^"'\n#]+?)["']?\s*(?:#.*)?$/gm)) out.push(m[1]!);
  const classic = /^yarn-path\s+["']?([^"'\n]+?)["']?\s*$/m.exec(read(".yarnrc"))?.[1];
  if (classic) out.push(classic);
  return out;
}
