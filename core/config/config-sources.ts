import { existsSync, realpathSync } from "node:fs";
import { irregularFileProblem, MAX_CONFIG_BYTES, readRegularFile } from "../bounded-read.js";
import { parseJsonText } from "../json-text.js";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { errorMessage } from "../errors.js";
import { realOrSelf } from "../real-path.js";
import { inside } from "../tools/confine-path.js";
import { ancestorsWithin, type Workspace } from "../workspace.js";
import { projectExplorer } from "./project-explorer.js";

/** Names of the config layers, lowest precedence first. */
export type ConfigSourceName = "user" | "legacy" | "claude" | "project" | "local";

/** Who wrote a layer: the user (`$KEEL_HOME`, trusted) or the workspace (the repository: untrusted until `keel trust`). */
export type TrustLevel = "user" | "workspace";

/** The trust level of a config source: only `user` is the user's own; every other layer is a file in the repository. */
export function levelOf(source: ConfigSourceName): TrustLevel {
  return source === "user" ? "user" : "workspace";
}

/** One loaded config file. */
export interface ConfigLayer {
  source: ConfigSourceName;
  file: string;
  /** Parsed content, or undefined when the file could not be parsed (see `error`). */
  value?: Record<string, unknown>;
  error?: string;
  /**
   * A `.claude/settings*.json` below the workspace root: the folder holding its `.claude/`, relative
   * to the root with `/` separators (`packages/api`). Its path rules are relative to that folder, as
   * Claude Code started there reads them. Unset at the root and for other sources.
   */
  scope?: string;
}

/** Config files of keel's predecessors, read (as full keel config) from the workspace root. */
export const LEGACY_CONFIG_FILES = [".claw-config.json", ".codex-config.json"] as const;

/** Claude Code's project settings files in a `.claude/` folder, lowest precedence first. */
export const CLAUDE_SETTINGS_FILES = ["settings.json", "settings.local.json"] as const;

/**
 * Files each JSON layer reads, in merge order, for a workspace. The project layer comes from cosmiconfig.
 * Claude Code's settings are read in every folder from the workspace root down to the working
 * directory (root first: a nearer folder's files come later and win), `settings.json` then
 * `settings.local.json` in each; a folder without a `.claude` entry costs one failed stat.
 */
export function jsonLayerFiles(ws: Workspace): { source: ConfigSourceName; file: string }[] {
  // keel's own state is never an input: inside a managed worktree the walk passes `.keel/worktrees` and `.keel`, which are skipped.
  const state = [ws.stateDir, join(ws.stateDir, "worktrees")];
  const claudeDirs = ancestorsWithin(ws.cwd, ws.root)
    .filter((dir) => !state.includes(dir))
    .reverse()
    .map((dir) => join(dir, ".claude"))
    .filter((dir) => existsSync(dir));
  return [
    { source: "user", file: join(ws.keelHome, "config.json") },
    ...LEGACY_CONFIG_FILES.map((name) => ({ source: "legacy" as const, file: join(ws.root, name) })),
    ...claudeDirs.flatMap((dir) => CLAUDE_SETTINGS_FILES.map((name) => ({ source: "claude" as const, file: join(dir, name) }))),
  ];
}

/**
 * The `scope` of a `.claude/settings*.json` (see ConfigLayer): its project folder relative to `root`, or undefined at the root (or outside it).
 * A file of a managed worktree (`<root>/.keel/worktrees/<name>/…`, read when keel starts there) is relative to that worktree, which
 * is the root every path rule is matched against there.
 */
export function claudeScope(file: string, root: string): string | undefined {
  const project = dirname(dirname(file));
  const worktrees = join(root, ".keel", "worktrees");
  const [name] = relative(worktrees, project).split(sep);
  const base = project !== worktrees && inside(worktrees, project) && name ? join(worktrees, name) : root;
  const rel = relative(base, project);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join("/");
}

/** Path of the local layer (`.keel/config.local.json`). */
export function localConfigFile(ws: Workspace): string {
  return join(ws.stateDir, "config.local.json");
}

/**
 * Why a workspace's config file may not be read: it is a link (or lies in a linked folder) leading
 * outside the workspace — `.claw-config.json → ~/.keel/mcp-oauth/….json` would otherwise show a
 * token to the model through `config_list`, and a parse error quotes the start of any file. Undefined
 * when it resolves inside `root` or does not exist. The file's content is never read. Never throws.
 */
export function leadsOutside(file: string, root: string): string | undefined {
  let real: string;
  try {
    real = realpathSync.native(file);
  } catch {
    return undefined;
  }
  if (inside(realOrSelf(root), real)) return undefined;
  return `${file} leads outside the workspace (to ${real}); keel reads a workspace's config only from files inside it, so it was not read. Replace the link with a copy of the file.`;
}

/**
 * Reads one JSON layer; missing → undefined; unparseable, not a regular file, over 10 MiB, or (a
 * workspace layer, `root` given) leading outside the workspace → a layer with `error` (never thrown).
 */
export async function readJsonLayer(source: ConfigSourceName, file: string, root?: string): Promise<ConfigLayer | undefined> {
  // (a device or FIFO is named as such first: it is refused either way, unread)
  const outside = root === undefined ? undefined : (irregularFileProblem(file, MAX_CONFIG_BYTES) ?? leadsOutside(file, root));
  if (outside) return { source, file, error: outside };
  let text: string;
  try {
    text = readRegularFile(file, MAX_CONFIG_BYTES);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
    return { source, file, error: errorMessage(error) };
  }
  try {
    const value = parseJsonText(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) return { source, file, error: "the top level must be a JSON object" };
    return { source, file, value: value as Record<string, unknown> };
  } catch (error) {
    return { source, file, error: `not valid JSON: ${errorMessage(error)}` };
  }
}

/**
 * Project config files keel reads, in cosmiconfig's search order: data formats only (JSON and YAML).
 * Configuration is data, never code: `keel.config.js|ts|cjs|mjs`, `.keelrc.js` etc. are never loaded.
 */
export const PROJECT_CONFIG_FILES = [
  "package.json",
  ".keelrc",
  ".keelrc.json",
  ".keelrc.yaml",
  ".keelrc.yml",
  ".config/keelrc",
  ".config/keelrc.json",
  ".config/keelrc.yaml",
  ".config/keelrc.yml",
  "keel.config.json",
  "keel.config.yaml",
  "keel.config.yml",
] as const;

/** Config files that would have to be executed to be read: keel refuses them and says so. */
export const CODE_CONFIG_FILES: readonly string[] = ["keel.config", ".keelrc", ".config/keelrc"].flatMap((base) =>
  ["js", "cjs", "mjs", "ts", "cts", "mts"].map((ext) => `${base}.${ext}`),
);

/** Code config files present from cwd up to the workspace root (they are never loaded). */
export function codeConfigFiles(ws: Workspace): string[] {
  return ancestorsWithin(ws.cwd, ws.root).flatMap((dir) => CODE_CONFIG_FILES.map((name) => join(dir, name)).filter((f) => existsSync(f)));
}

/** Loads the project layer with cosmiconfig (module `keel`), searching from cwd up to the workspace root (never above). Data formats only. */
export async function loadProjectLayer(ws: Workspace): Promise<ConfigLayer | undefined> {
  const dirs = ancestorsWithin(ws.cwd, ws.root);
  // No candidate file anywhere: nothing to search, and cosmiconfig (with its YAML parser) is not loaded.
  if (!dirs.some((dir) => PROJECT_CONFIG_FILES.some((name) => existsSync(join(dir, name))))) return undefined;
  const explorer = await projectExplorer(PROJECT_CONFIG_FILES);
  try {
    let found = null;
    for (const dir of dirs) {
      // cosmiconfig reads whatever it finds: make sure each candidate is a regular file of bounded size first (a FIFO would block it forever).
      for (const name of PROJECT_CONFIG_FILES) {
        const problem = irregularFileProblem(join(dir, name), MAX_CONFIG_BYTES) ?? leadsOutside(join(dir, name), ws.root);
        if (problem) return { source: "project", file: join(dir, name), error: problem };
      }
      found = await explorer.search(dir);
      if (found) break;
    }
    if (!found || found.isEmpty) return undefined;
    const value = found.config as unknown;
    if (value === null || typeof value !== "object" || Array.isArray(value))
      return { source: "project", file: found.filepath, error: "the config must be an object" };
    return { source: "project", file: found.filepath, value: value as Record<string, unknown> };
  } catch (error) {
    const file = (error as { filepath?: string }).filepath ?? join(ws.root, "keel.config.json");
    return { source: "project", file, error: errorMessage(error) };
  }
}
