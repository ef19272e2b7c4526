import { parseJsonText } from "../../core/index.js";
import { join, sep } from "node:path";
import { EXCLUDED_DIR_NAMES } from "../discovery-scope.js";
import type { PluginLayout } from "./discover-plugin-files.js";
import { resolveInsideRoot } from "./plugin-bundles.js";
import type { PluginFs } from "./plugin-fs.js";
import { CLAUDE_HOOK_EVENTS, type ManifestIssue, type PluginManifest } from "./plugin-manifest-schema.js";

/** Something a Claude Code plugin carries beyond plugin.json: skills, agents, commands and hook events (run by their runtimes) and output styles (listed, not used yet). */
export interface InformationalItem {
  kind: "command" | "agent" | "skill" | "hook-event" | "output-style";
  name: string;
  /** File or folder it came from. */
  file?: string;
}

/**
 * Lists what a Claude Code / Codex style plugin bundles besides plugin.json, for `keel plugins`:
 * `commands/*.md`, `agents/*.md`, `skills/<name>/SKILL.md`, `output-styles/*.md`, hook events of `hooks/hooks.json`
 * (and of hook files or events named in the manifest). Problems are warnings, never errors. Never throws.
 */
export function collectPluginExtras(
  manifest: PluginManifest,
  root: string,
  layout: PluginLayout,
  fs: PluginFs,
  issues: ManifestIssue[],
  commandPaths: readonly string[] = [],
): InformationalItem[] {
  const items: InformationalItem[] = [];
  for (const event of manifest.claudeHookEvents) items.push({ kind: "hook-event", name: event });
  const hookFiles = manifest.claudeHookFiles.map((f) => ({ ref: f, path: "hooks" }));
  // one listing of the root: folders it does not have are not read (a missing path costs an exception each)
  const entries = new Set(fs.list(root));
  const defaultCommands = join(root, "commands");
  for (const place of commandPaths)
    if (place !== defaultCommands || entries.has("commands"))
      for (const name of commandNames(fs, place)) items.push({ kind: "command", name: `/${name}`, file: place });
  if (layout === "claude" || layout === "codex") {
    hookFiles.unshift({ ref: "hooks/hooks.json", path: "" });
    if (entries.has("agents")) mdNames(fs, join(root, "agents")).forEach((n) => items.push({ kind: "agent", name: n, file: join(root, "agents") }));
    if (entries.has("skills"))
      for (const skill of fs
        .subdirs(join(root, "skills"))
        .filter((n) => !EXCLUDED_DIR_NAMES.has(n))
        .sort())
        if (fs.isFile(join(root, "skills", skill, "SKILL.md"))) items.push({ kind: "skill", name: skill, file: join(root, "skills", skill) });
    if (entries.has("output-styles"))
      mdNames(fs, join(root, "output-styles")).forEach((n) => items.push({ kind: "output-style", name: n, file: join(root, "output-styles") }));
  }
  const seenFiles = new Set<string>();
  for (const { ref, path } of hookFiles) {
    const target = resolveInsideRoot(root, ref);
    if (!target.ok) {
      issues.push({ severity: "warning", path, message: `hooks file ${target.reason}; it was ignored.` });
      continue;
    }
    if (seenFiles.has(target.path)) continue;
    seenFiles.add(target.path);
    if (!fs.isFile(target.path)) {
      if (path) issues.push({ severity: "warning", path, message: `hooks file ${target.path} does not exist; it was ignored.` });
      continue;
    }
    for (const event of hookEvents(fs, target.path, issues)) items.push({ kind: "hook-event", name: event, file: target.path });
  }
  return items;
}

/**
 * Names of the commands at `place` (a folder or one file), as the command loader names them:
 * Claude `*.md` by file name, Gemini `*.toml` by path joined with `:`. Sorted; at most 4 folders deep.
 */
export function commandNames(fs: PluginFs, place: string): string[] {
  const names: string[] = [];
  const add = (rel: string[]) => {
    const file = rel.at(-1)!;
    if (file.endsWith(".md")) names.push(file.slice(0, -3));
    else if (file.endsWith(".toml")) names.push([...rel.slice(0, -1), file.slice(0, -5)].join(":"));
  };
  if (fs.isFile(place)) {
    add([place.slice(place.lastIndexOf(sep) + 1)]);
    return names;
  }
  const walk = (dir: string, rel: string[], depth: number) => {
    const subdirs = new Set(fs.subdirs(dir));
    for (const name of fs.list(dir).sort()) {
      if (subdirs.has(name)) {
        if (depth < 4 && !name.startsWith(".") && !EXCLUDED_DIR_NAMES.has(name)) walk(join(dir, name), [...rel, name], depth + 1);
      } else add([...rel, name]);
    }
  };
  walk(place, [], 0);
  return names.sort();
}

function mdNames(fs: PluginFs, dir: string): string[] {
  return fs
    .list(dir)
    .filter((f) => f.endsWith(".md"))
    .map((f) => f.slice(0, -3))
    .sort();
}

function hookEvents(fs: PluginFs, file: string, issues: ManifestIssue[]): string[] {
  let value: unknown;
  try {
    value = parseJsonText(fs.readText(file));
  } catch (error) {
    issues.push({
      severity: "warning",
      path: "",
      message: `Claude Code hooks file ${file} could not be read as JSON (${(error as Error).message}); its hook events are not listed.`,
    });
    return [];
  }
  const hooks = (value as { hooks?: unknown } | null)?.hooks ?? value;
  if (!hooks || typeof hooks !== "object" || Array.isArray(hooks)) return [];
  return Object.keys(hooks).filter((k) => CLAUDE_HOOK_EVENTS.has(k) || /^[A-Z][A-Za-z]+$/.test(k));
}
