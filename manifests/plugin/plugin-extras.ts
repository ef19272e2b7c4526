import { join } from "node:path";
import { EXCLUDED_DIR_NAMES } from "../discovery-scope.js";
import type { PluginLayout } from "./discover-plugin-files.js";
import { resolveInsideRoot } from "./plugin-bundles.js";
import type { PluginFs } from "./plugin-fs.js";
import { CLAUDE_HOOK_EVENTS, type ManifestIssue, type PluginManifest } from "./plugin-manifest-schema.js";

/** Something a Claude Code plugin carries beyond plugin.json: skills and agents (loaded by their runtimes) and what keel records but does not run yet (commands, hook events, output styles). */
export interface InformationalItem {
  kind: "command" | "agent" | "skill" | "hook-event" | "output-style";
  name: string;
  /** File or folder it came from. */
  file?: string;
}

/**
 * Lists what a Claude Code / Codex style plugin bundles that keel does not run yet:
 * `commands/*.md`, `agents/*.md`, `skills/<name>/SKILL.md`, hook events of `hooks/hooks.json`
 * (and of hook files or events named in the manifest). Problems are warnings, never errors. Never throws.
 */
export function collectPluginExtras(manifest: PluginManifest, root: string, layout: PluginLayout, fs: PluginFs, issues: ManifestIssue[]): InformationalItem[] {
  const items: InformationalItem[] = [];
  for (const event of manifest.claudeHookEvents) items.push({ kind: "hook-event", name: event });
  const hookFiles = manifest.claudeHookFiles.map((f) => ({ ref: f, path: "hooks" }));
  if (layout === "claude" || layout === "codex") {
    hookFiles.unshift({ ref: "hooks/hooks.json", path: "" });
    const entries = new Set(fs.list(root));
    if (entries.has("commands"))
      mdNames(fs, join(root, "commands")).forEach((n) => items.push({ kind: "command", name: `/${n}`, file: join(root, "commands") }));
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
    value = JSON.parse(fs.readText(file));
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
