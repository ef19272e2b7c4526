import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { createHash } from "./lazy-crypto.js";
import { readRegularFile } from "./bounded-read.js";
import { parseJsonText } from "./json-text.js";
import type { ScriptRun } from "./package-script-runs.js";
import { inside } from "./tools/confine-path.js";
import { workspacePackageDirs, workspacePatterns } from "./workspace-packages.js";

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

/**
 * The files that change what a package runner (`npx tsx x.ts`, `npm exec`, `pnpm dlx`) started in `cwd` runs: the `.npmrc`
 * (whose `script-shell` runs the program, whose `node-options` loads code into it) and yarn's and pnpm's settings, of `cwd`
 * and of the nearest package folder up to `root`, as npm finds its project config. None outside `root`. Never throws.
 */
export function runnerConfigFiles(cwd: string, root: string): string[] {
  if (!inside(root, cwd)) return [];
  let dir = cwd;
  while (!existsSync(join(dir, "package.json")) && dir !== root && inside(root, dirname(dir))) dir = dirname(dir);
  const dirs = dir === cwd || !existsSync(join(dir, "package.json")) ? [cwd] : [cwd, dir];
  return dirs.flatMap((d) => [...RC_FILES.map((f) => join(d, f)), ...yarnCode(d).map((f) => resolve(d, f))]);
}

/**
 * The files bun reads itself when started in `cwd` (`bun x.ts`, `bun run lint`, `bunx tool`): its `bunfig.toml`, whose
 * `preload` runs code before any script (and `[run] bun = true` runs a script's `node` as bun, preload included), and the
 * `.env` files it loads into what it runs (`.env`, `.env.local`, `.env.<NODE_ENV>`, `.env.<NODE_ENV>.local`, for each
 * NODE_ENV bun knows, since the one it runs with is not on the line). Of `cwd` and, loosely, of the nearest package folder
 * up to `root` (see `runnerConfigFiles`). None outside `root`. Never throws.
 */
export function bunConfigFiles(cwd: string, root: string): string[] {
  if (!inside(root, cwd)) return [];
  let dir = cwd;
  while (!existsSync(join(dir, "package.json")) && dir !== root && inside(root, dirname(dir))) dir = dirname(dir);
  const dirs = dir === cwd || !existsSync(join(dir, "package.json")) ? [cwd] : [cwd, dir];
  return dirs.flatMap((d) => BUN_FILES.map((f) => join(d, f)));
}

const BUN_FILES = ["bunfig.toml", ".env", ".env.local", ...["development", "production", "test"].flatMap((mode) => [`.env.${mode}`, `.env.${mode}.local`])];

/** A package folder's settings files that change how its scripts and runners run. */
const RC_FILES = [".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs"];

/** The pin of script `name` of the package.json in `dir` (all its scripts when undefined: `package.json#scripts`), with what changes how it runs there. */
function scriptPinIn(dir: string, name: string | undefined, root: string): ScriptPin {
  const file = join(dir, "package.json");
  const entry = `${relative(root, file)}#scripts${name === undefined ? "" : `.${name}`}`;
  const read = scriptTexts(file, name);
  const rc = [...RC_FILES, ...(name === "start" || name === undefined ? ["server.js"] : [])].map((f) => join(dir, f));
  rc.push(...yarnCode(dir).map((f) => resolve(dir, f)));
  if (typeof read === "string") return { entry, digest: read, texts: [], dir, files: rc };
  const digest = `sha256:${createHash("sha256").update(JSON.stringify(read)).digest("hex")}`;
  return { entry, digest, texts: read.filter((t): t is string => typeof t === "string"), dir, files: rc };
}

/** The digest `scriptPins` gave `entry` (`<path>/package.json#scripts.<name>`, or `#scripts` for all of them, relative to `root`) now, or undefined when `entry` names no script. */
export function scriptEntryDigest(root: string, entry: string): string | undefined {
  const m = /^(.*package\.json)#scripts(?:\.(.*))?$/s.exec(entry);
  if (!m) return undefined;
  const read = scriptTexts(resolve(root, m[1]!), m[2]);
  return typeof read === "string" ? read : `sha256:${createHash("sha256").update(JSON.stringify(read)).digest("hex")}`;
}

/**
 * `[pre<name>, <name>, post<name>]` of package.json `file` (null when absent), every script's `[name, text]` then its texts when `name` is
 * undefined, or why it cannot be read (`unreadable (ENOENT)`, `not JSON`).
 */
function scriptTexts(file: string, name: string | undefined): unknown[] | string {
  let value: unknown;
  try {
    value = parseJsonText(readRegularFile(file, MAX_PACKAGE_JSON_BYTES));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return error instanceof SyntaxError ? "not JSON" : `unreadable (${code ?? "not a regular file of at most 16 MB"})`;
  }
  const scripts = value !== null && typeof value === "object" && "scripts" in value ? (value as { scripts: unknown }).scripts : undefined;
  const table = scripts !== null && typeof scripts === "object" && !Array.isArray(scripts) ? (scripts as Record<string, unknown>) : {};
  if (name === undefined) {
    const all = Object.entries(table).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return [...all, ...all.map(([, text]) => text)];
  }
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
