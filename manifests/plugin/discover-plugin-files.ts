import { join } from "node:path";
import { discoveryDirs, EXCLUDED_DIR_NAMES, isExcludedBelow } from "../discovery-scope.js";
import { nodePluginFs, type PluginFs } from "./plugin-fs.js";

/** Which layout a manifest was found in. */
export type PluginLayout = "codex" | "claw" | "claude" | "keel";

/** A plugin.json found by discovery. */
export interface PluginFile {
  /** Absolute path as found. */
  path: string;
  /** Canonical path (duplicates by real path load once). */
  realPath: string;
  /** Plugin root: the folder holding `.claude-plugin/` etc., or `plugins/<name>/`. */
  root: string;
  /** `project` (workspace) or `user` (`$KEEL_HOME/plugins`). */
  level: "project" | "user";
  layout: PluginLayout;
}

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
 * directory name; then the same `plugins/` layout under `$KEEL_HOME`. Same real path loads once.
 * Nothing inside `node_modules/`, `.git/` or `.keel/worktrees/` of the workspace is read, also
 * when keel starts inside one of them; a manifest linking in there is passed to `onExcluded`
 * instead. Never throws.
 */
export function discoverPluginFiles(places: DiscoveryPlaces, fs: PluginFs = nodePluginFs, onExcluded?: (path: string, realPath: string) => void): PluginFile[] {
  const found: PluginFile[] = [];
  const seen = new Set<string>();
  const add = (path: string, level: PluginFile["level"], layout: PluginLayout, root: string) => {
    if (!fs.isFile(path)) return;
    let realPath: string;
    try {
      realPath = fs.realpath(path);
    } catch {
      return;
    }
    if (seen.has(realPath)) return;
    if (level === "project" && isExcludedBelow(places.root, realPath)) return onExcluded?.(path, realPath);
    seen.add(realPath);
    found.push({ path, realPath, root, level, layout });
  };
  for (const dir of discoveryDirs(places.cwd, places.root)) {
    for (const [folder, layout] of DOT_LAYOUTS) add(join(dir, folder, "plugin.json"), "project", layout, dir);
    addPluginsDir(join(dir, "plugins"), "project", fs, add);
  }
  addPluginsDir(join(places.keelHome, "plugins"), "user", fs, add);
  return found;
}

function addPluginsDir(
  pluginsDir: string,
  level: PluginFile["level"],
  fs: PluginFs,
  add: (path: string, level: PluginFile["level"], layout: PluginLayout, root: string) => void,
): void {
  const names = fs
    .subdirs(pluginsDir)
    .filter((n) => !EXCLUDED_DIR_NAMES.has(n))
    .sort(compareCodePoints);
  for (const name of names) {
    const root = join(pluginsDir, name);
    add(join(root, "plugin.json"), level, "keel", root);
    add(join(root, ".claude-plugin", "plugin.json"), level, "claude", root);
  }
}

/** Deterministic, locale-independent ordering. */
function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
