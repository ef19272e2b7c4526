import { join } from "node:path";
import { userItemProblem, userItemRefusal, userTreeProblem, userTreeRefusal, yourOwners } from "../../core/index.js";
import { discoveryDirs, EXCLUDED_DIR_NAMES, isExcludedBelow } from "../discovery-scope.js";
import { nodePluginFs, type PluginFs } from "./plugin-fs.js";

/** Which layout a manifest was found in (`gemini`: a Gemini CLI extension's gemini-extension.json). */
export type PluginLayout = "codex" | "claw" | "claude" | "keel" | "gemini";

/** A plugin.json (or gemini-extension.json, or a manifest-less Claude Code plugin folder) found by discovery. */
export interface PluginFile {
  /** Absolute path as found; for a plugin folder without a manifest, the folder. */
  path: string;
  /** Canonical path (duplicates by real path load once). */
  realPath: string;
  /** Plugin root: the folder holding `.claude-plugin/` etc., or `plugins/<name>/`. */
  root: string;
  /** `project` (workspace) or `user` (`$KEEL_HOME/plugins`). */
  level: "project" | "user";
  layout: PluginLayout;
  /** The workspace root discovery ran in (what a Gemini CLI extension's `${workspacePath}` expands to). */
  workspaceRoot?: string;
  /** A folder under `plugins/` with `commands/`, `agents/`, `skills/` or `hooks/` but no plugin.json: named after the folder (as Claude Code does). */
  folderOnly?: boolean;
  /** The root is a discovery directory itself (`.claude-plugin/` etc. in the workspace): its `.mcp.json` is the workspace's, not the plugin's. */
  rootIsWorkspaceDir?: boolean;
}

/** What makes a folder under `plugins/` a Claude Code plugin when it has no manifest. */
const PLUGIN_FOLDER_PARTS = ["commands", "agents", "skills", "hooks"] as const;

/** Where to look: the workspace's working directory, its root, and `$KEEL_HOME`. */
export interface DiscoveryPlaces {
  cwd: string;
  root: string;
  keelHome: string;
}

const DOT_LAYOUTS: ReadonlyArray<[string, PluginLayout]> = [
  [".codex-plugin", "codex"],
  [".claw-plugin", "claw"],
  [".claude-plugin", "claude"],
];

/**
 * Finds plugin manifests in the documented order: in the working directory, then each ancestor
 * up to the workspace root (never above it): `.codex-plugin/`, `.claw-plugin/`, `.claude-plugin/`,
 * then `plugins/<dir>/plugin.json` and `plugins/<dir>/.claude-plugin/plugin.json` sorted by
 * directory name (a folder there with `commands/`, `agents/`, `skills/` or `hooks/` but no manifest
 * loads under its folder name); then Gemini CLI extensions `.gemini/extensions/<dir>/gemini-extension.json`;
 * then the same `plugins/` layout and `extensions/<dir>/gemini-extension.json` under `$KEEL_HOME`. Same real path loads once
 * (as yours when one of the places is under `$KEEL_HOME`).
 * Nothing inside `node_modules/`, `.git/` or `.keel/worktrees/` of the workspace is read, also
 * when keel starts inside one of them; a manifest linking in there is passed to `onExcluded`
 * instead. A user-level manifest (or plugin folder) that another user owns or every user may write, or that lies in
 * such a folder below `$KEEL_HOME/plugins` (or `extensions`), is passed to `onRefused` with the diagnostic's
 * message instead: it would speak for you. Never throws.
 */
export function discoverPluginFiles(
  places: DiscoveryPlaces,
  fs: PluginFs = nodePluginFs,
  onExcluded?: (path: string, realPath: string) => void,
  onRefused?: (path: string, message: string) => void,
): PluginFile[] {
  const owners = yourOwners(process.env);
  // each user-level plugin's folder tree is walked once (a plugin may have two manifests)
  const trees = new Map<string, string | undefined>();
  const treeProblem = (root: string) => {
    if (!trees.has(root)) trees.set(root, userTreeProblem(root, owners));
    return trees.get(root);
  };
  const found: PluginFile[] = [];
  const seen = new Map<string, PluginFile>();
  const add: AddFile = (path, level, layout, root, extra = {}) => {
    if (extra.folderOnly ? !fs.exists(path) : !fs.isFile(path)) return;
    let realPath: string;
    try {
      realPath = fs.realpath(path);
    } catch {
      return;
    }
    const prior = seen.get(realPath);
    if (prior && (level !== "user" || prior.level === "user")) return;
    // A workspace link to one of your plugins (`plugins/guard → ~/.keel/plugins/guard`) does not make it the
    // workspace's: it loads as yours, where it is yours (else its hooks would wait for trust, a guard of yours silenced).
    if (prior) found.splice(found.indexOf(prior), 1);
    if (level === "project" && isExcludedBelow(places.root, realPath)) return onExcluded?.(path, realPath);
    if (level === "user") {
      const item = userItemProblem(join(places.keelHome, layout === "gemini" ? "extensions" : "plugins"), path, owners);
      if (item !== undefined) return onRefused?.(path, userItemRefusal(`The user-level plugin ${root}`, item));
      const tree = treeProblem(root);
      if (tree !== undefined) return onRefused?.(path, userTreeRefusal(`The user-level plugin ${root}`, tree));
    }
    const file: PluginFile = { path, realPath, root, level, layout, workspaceRoot: places.root, ...extra };
    seen.set(realPath, file);
    found.push(file);
  };
  const dirs = discoveryDirs(places.cwd, places.root);
  for (const dir of dirs) {
    for (const [folder, layout] of DOT_LAYOUTS) add(join(dir, folder, "plugin.json"), "project", layout, dir, { rootIsWorkspaceDir: true });
    addPluginsDir(join(dir, "plugins"), "project", fs, add);
  }
  for (const dir of dirs) addExtensionsDir(join(dir, ".gemini", "extensions"), "project", fs, add);
  addPluginsDir(join(places.keelHome, "plugins"), "user", fs, add);
  addExtensionsDir(join(places.keelHome, "extensions"), "user", fs, add);
  return found;
}

type AddFile = (
  path: string,
  level: PluginFile["level"],
  layout: PluginLayout,
  root: string,
  extra?: Pick<PluginFile, "folderOnly" | "rootIsWorkspaceDir">,
) => void;

function sortedSubdirs(dir: string, fs: PluginFs): string[] {
  return fs
    .subdirs(dir)
    .filter((n) => !EXCLUDED_DIR_NAMES.has(n))
    .sort(compareCodePoints);
}

/** Gemini CLI extensions: `<dir>/<name>/gemini-extension.json`. */
function addExtensionsDir(dir: string, level: PluginFile["level"], fs: PluginFs, add: AddFile): void {
  for (const name of sortedSubdirs(dir, fs)) add(join(dir, name, "gemini-extension.json"), level, "gemini", join(dir, name));
}

function addPluginsDir(pluginsDir: string, level: PluginFile["level"], fs: PluginFs, add: AddFile): void {
  for (const name of sortedSubdirs(pluginsDir, fs)) {
    const root = join(pluginsDir, name);
    // one listing of the folder decides what to look at (a missing path costs an exception each)
    const entries = new Set(fs.list(root));
    const keel = join(root, "plugin.json");
    const claude = join(root, ".claude-plugin", "plugin.json");
    if (entries.has("plugin.json")) add(keel, level, "keel", root);
    if (entries.has(".claude-plugin")) add(claude, level, "claude", root);
    if ((entries.has("plugin.json") && fs.isFile(keel)) || (entries.has(".claude-plugin") && fs.isFile(claude))) continue;
    if (PLUGIN_FOLDER_PARTS.some((part) => entries.has(part) && fs.subdirs(root).includes(part))) add(root, level, "claude", root, { folderOnly: true });
  }
}

/** Deterministic, locale-independent ordering. */
function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
