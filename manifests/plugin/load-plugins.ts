import type { Diagnostic } from "../../core/index.js";
import { excludedLinkMessage } from "../discovery-scope.js";
import { discoverPluginFiles, type DiscoveryPlaces, type PluginFile, type PluginLayout } from "./discover-plugin-files.js";
import { loadBundledMcpServers, loadBundledWorkflows } from "./plugin-bundles.js";
import { collectPluginExtras, type InformationalItem } from "./plugin-extras.js";
import { nodePluginFs, type PluginFs } from "./plugin-fs.js";
import type { ManifestIssue, PluginManifest } from "./plugin-manifest-schema.js";
import { parsePluginManifest } from "./parse-plugin-manifest.js";

/** Diagnostics produced here carry this source. */
export const PLUGIN_DIAGNOSTIC_SOURCE = "plugin";

/** One plugin that loaded (possibly with some items skipped). */
export interface LoadedPlugin {
  manifest: PluginManifest;
  manifestPath: string;
  root: string;
  level: "project" | "user";
  layout: PluginLayout;
  mcpServers: Record<string, unknown>;
  mcpServersFile?: string;
  workflows: unknown[];
  workflowsFile?: string;
  informational: InformationalItem[];
  /** Diagnostics about this plugin's file, in the order found. */
  diagnostics: Diagnostic[];
}

/** A manifest file that could not load at all (not JSON, not an object, no name, taken name, a link into an excluded folder). */
export interface FailedPluginFile {
  file: string;
  level: "project" | "user";
  diagnostics: Diagnostic[];
}

/** Everything discovery and loading produced, in discovery order. */
export interface PluginLoadResult {
  plugins: LoadedPlugin[];
  failed: FailedPluginFile[];
  /** Every diagnostic (plugins' and failed files'), in discovery order. */
  diagnostics: Diagnostic[];
}

/**
 * Discovers and loads every plugin manifest. One bad file never stops the others; a manifest
 * linking into `node_modules/`, `.git/` or `.keel/worktrees/` is a failed file with a warning. Never throws.
 */
export function loadPlugins(places: DiscoveryPlaces, fs: PluginFs = nodePluginFs): PluginLoadResult {
  const excluded: FailedPluginFile[] = [];
  const files = discoverPluginFiles(places, fs, (path, realPath) =>
    excluded.push({ file: path, level: "project", diagnostics: [diag(path, { severity: "warning", path: "", message: excludedLinkMessage(realPath) })] }),
  );
  const result = loadPluginFiles(files, fs);
  result.failed.push(...excluded);
  result.diagnostics.push(...excluded.flatMap((f) => f.diagnostics));
  return result;
}

/**
 * Loads already discovered manifest files in order. Plugin names match case-insensitively: a
 * user-level plugin always wins over a workspace plugin of the same name (the workspace one is
 * skipped with an error naming both files, so a repository cannot displace the user's blocks);
 * within a level the first in discovery order wins. Results stay in discovery order. Never throws.
 */
export function loadPluginFiles(files: PluginFile[], fs: PluginFs = nodePluginFs): PluginLoadResult {
  const outcomes = files.map((file) => loadSafely(file, fs));
  const winners = new Map<string, LoadedPlugin>();
  for (const level of ["user", "project"] as const)
    for (const outcome of outcomes) {
      if (!("manifest" in outcome) || outcome.level !== level) continue;
      const key = outcome.manifest.name.toLowerCase();
      if (!winners.has(key)) winners.set(key, outcome);
    }
  const result: PluginLoadResult = { plugins: [], failed: [], diagnostics: [] };
  for (let outcome of outcomes) {
    if ("manifest" in outcome) {
      const winner = winners.get(outcome.manifest.name.toLowerCase())!;
      if (winner !== outcome) outcome = displaced(outcome, winner);
    }
    if ("manifest" in outcome) result.plugins.push(outcome);
    else result.failed.push(outcome);
    result.diagnostics.push(...outcome.diagnostics);
  }
  return result;
}

function loadSafely(file: PluginFile, fs: PluginFs): LoadedPlugin | FailedPluginFile {
  try {
    return loadPluginFile(file, fs);
  } catch (error) {
    return {
      file: file.path,
      level: file.level,
      diagnostics: [
        diag(file.path, {
          severity: "error",
          path: "",
          message: `Unexpected failure while loading the plugin: ${(error as Error)?.message ?? String(error)}; it was skipped.`,
        }),
      ],
    };
  }
}

/** The record of a plugin skipped because another one with its name won. */
function displaced(loser: LoadedPlugin, winner: LoadedPlugin): FailedPluginFile {
  const sameName = winner.manifest.name === loser.manifest.name ? `"${winner.manifest.name}"` : `"${winner.manifest.name}" (names match case-insensitively)`;
  const message =
    winner.level === "user" && loser.level === "project"
      ? `A user-level plugin named ${sameName} is loaded from ${winner.manifestPath}; this workspace plugin (${loser.manifestPath}) was skipped: a workspace plugin may not replace a user-level one (the user's blocks and hooks always apply). Rename this plugin to load both.`
      : `A plugin named ${sameName} was already loaded from ${winner.manifestPath}; this one (${loser.manifestPath}) was skipped (the first in discovery order wins). Rename one of them to load both.`;
  return { file: loser.manifestPath, level: loser.level, diagnostics: [diag(loser.manifestPath, { severity: "error", path: "name", message })] };
}

function loadPluginFile(file: PluginFile, fs: PluginFs): LoadedPlugin | FailedPluginFile {
  const fail = (message: string): FailedPluginFile => ({
    file: file.path,
    level: file.level,
    diagnostics: [diag(file.path, { severity: "error", path: "", message })],
  });
  let text: string;
  try {
    text = fs.readText(file.path);
  } catch (error) {
    return fail(`The manifest cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); the plugin was not loaded.`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    return fail(`The manifest is not valid JSON (${(error as Error).message}); the plugin was not loaded.`);
  }
  const parsed = parsePluginManifest(raw);
  const issues: ManifestIssue[] = [...parsed.issues];
  if (!parsed.manifest) return { file: file.path, level: file.level, diagnostics: issues.map((i) => diag(file.path, i)) };
  const manifest = parsed.manifest;
  const mcp = loadBundledMcpServers(manifest.mcpServers, file.path, file.root, fs, issues);
  const workflows = loadBundledWorkflows(manifest.workflows, file.path, file.root, fs, issues);
  const informational = collectPluginExtras(manifest, file.root, file.layout, fs, issues);
  return {
    manifest,
    manifestPath: file.path,
    root: file.root,
    level: file.level,
    layout: file.layout,
    mcpServers: mcp.servers,
    mcpServersFile: Object.keys(mcp.servers).length ? mcp.file : undefined,
    workflows: workflows.workflows,
    workflowsFile: workflows.workflows.length ? workflows.file : undefined,
    informational,
    diagnostics: issues.map((i) => diag(file.path, i)),
  };
}

function diag(file: string, issue: ManifestIssue): Diagnostic {
  return { severity: issue.severity, source: PLUGIN_DIAGNOSTIC_SOURCE, file, ...(issue.path ? { path: issue.path } : {}), message: issue.message };
}
