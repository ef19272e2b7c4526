import type { Diagnostic } from "../../core/index.js";
import { excludedLinkMessage } from "../discovery-scope.js";
import { discoverPluginFiles, type DiscoveryPlaces, type PluginLayout } from "./discover-plugin-files.js";
import type { DeniedCommand } from "./gemini-extension.js";
import type { InformationalItem } from "./plugin-extras.js";
import { nodePluginFs, type PluginFs } from "./plugin-fs.js";
import type { ManifestIssue, PluginManifest } from "./plugin-manifest-schema.js";

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
  /** File each MCP server came from (plugin.json, a file `mcpServers` names, the plugin-root `.mcp.json`). */
  mcpServerFiles: Record<string, string>;
  /** Command folders and files: `<root>/commands` plus the paths `commands` in plugin.json names (absolute, inside the root). */
  commandPaths: string[];
  /** Instruction files (a Gemini CLI extension's `contextFileName`), absolute, inside the root. */
  contextFiles: string[];
  /** Command prefixes whose bash calls are blocked (a Gemini CLI extension's `run_shell_command(…)` exclusions). */
  deniedCommands: DeniedCommand[];
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
 * linking into `node_modules/`, `.git/` or `.keel/worktrees/` is a failed file with a warning, a user-level one
 * another user owns or every user may write (or in such a folder) is a failed file with an error; a file a
 * user-level plugin reads beyond its manifest is refused the same way. Never throws.
 * The loader (and its zod schema) is imported only when there are manifests to load.
 */
export async function loadPlugins(places: DiscoveryPlaces, fs: PluginFs = nodePluginFs): Promise<PluginLoadResult> {
  const excluded: FailedPluginFile[] = [];
  const files = discoverPluginFiles(
    places,
    fs,
    (path, realPath) =>
      excluded.push({
        file: path,
        level: "project",
        diagnostics: [pluginDiagnostic(path, { severity: "warning", path: "", message: excludedLinkMessage(realPath) })],
      }),
    (path, message) => excluded.push({ file: path, level: "user", diagnostics: [pluginDiagnostic(path, { severity: "error", path: "", message })] }),
  );
  const result: PluginLoadResult = files.length
    ? (await import("./load-plugin-files.js")).loadPluginFiles(files, fs)
    : { plugins: [], failed: [], diagnostics: [] };
  result.failed.push(...excluded);
  result.diagnostics.push(...excluded.flatMap((f) => f.diagnostics));
  return result;
}

/** A manifest issue as a diagnostic of the file (source `plugin`). */
export function pluginDiagnostic(file: string, issue: ManifestIssue): Diagnostic {
  return { severity: issue.severity, source: PLUGIN_DIAGNOSTIC_SOURCE, file, ...(issue.path ? { path: issue.path } : {}), message: issue.message };
}
