import type { Diagnostic, PluginHandOff, PluginsService } from "../core/index.js";
import type { LoadedPlugin, FailedPluginFile } from "../manifests/plugin/load-plugins.js";
import type { InformationalItem } from "../manifests/plugin/plugin-extras.js";

/** Something a plugin declared that was not added, and why. */
export interface SkippedItem {
  kind: "alias" | "virtual tool" | "blocked tool" | "tool hook" | "hook" | "entry" | "mcp server" | "workflow";
  name: string;
  reason: string;
  /** JSON path in the manifest. */
  path?: string;
}

/** What one plugin added to the host. */
export interface PluginContributions {
  aliases: { name: string; baseTool: string }[];
  virtualTools: string[];
  blockedTools: string[];
  toolHooks: { tool: string; kinds: ("beforeTool" | "afterResult" | "blockMessage")[] }[];
  lifecycleHooks: { hook: string; texts: number }[];
  mcpServers: string[];
  workflows: number;
  /** Command prefixes whose bash calls are blocked (Gemini CLI `excludeTools` `run_shell_command(…)`). */
  blockedCommands: string[];
  /** Instruction files it adds to the system prompt (Gemini CLI `contextFileName`). */
  contextFiles: string[];
}

/** One row of `keel plugins`: a discovered plugin with what it added, skipped and noted. */
export interface PluginRecord {
  name: string;
  version?: string;
  description?: string;
  /** Absolute path of its plugin.json. */
  path: string;
  root: string;
  level: "project" | "user";
  /** `claude`, `codex`, `claw`, `keel` (plugins/<name>/plugin.json) or `gemini` (a Gemini CLI extension). */
  layout: string;
  /** True for a Claude Code plugin folder without a manifest (named after its folder). */
  folderOnly?: boolean;
  contributions: PluginContributions;
  skipped: SkippedItem[];
  /** Claude Code commands, agents, skills and hook events keel does not run yet. */
  informational: InformationalItem[];
  diagnostics: Diagnostic[];
  /** True when it bundles MCP servers or workflows that will not start until the workspace is trusted. */
  needsTrust: boolean;
  /** Its code module (`main`), when one was applied: the file (symlinks resolved) and the tools it registered. */
  code?: { module: string; tools: string[] };
}

/** The `"plugins"` service: hand-offs for other runtimes plus the records `keel plugins` prints. */
export interface PluginRuntimeService extends PluginsService {
  /** Every loaded plugin, in discovery order. */
  records(): PluginRecord[];
  /** Manifest files that could not load at all, with why. */
  failed(): FailedPluginFile[];
}

/** Builds a plugin's initial record (contributions filled in as they register). */
export function createPluginRecord(plugin: LoadedPlugin, trusted: boolean): PluginRecord {
  const m = plugin.manifest;
  const hasProcesses = Object.keys(plugin.mcpServers).length > 0 || plugin.workflows.length > 0 || m.main !== undefined;
  return {
    name: m.name,
    ...(m.version ? { version: m.version } : {}),
    ...(m.description ? { description: m.description } : {}),
    path: plugin.manifestPath,
    root: plugin.root,
    level: plugin.level,
    layout: plugin.layout,
    ...(plugin.manifestPath === plugin.root ? { folderOnly: true } : {}),
    contributions: {
      aliases: [],
      virtualTools: [],
      blockedTools: m.blockedTools.map((b) => b.name),
      toolHooks: m.toolHooks.map((h) => ({
        tool: h.tool,
        kinds: (["beforeTool", "afterResult", "blockMessage"] as const).filter((k) => h[k] !== undefined),
      })),
      lifecycleHooks: m.hooks.map((h) => ({ hook: h.hook, texts: h.texts.length })),
      mcpServers: Object.keys(plugin.mcpServers),
      workflows: plugin.workflows.length,
      blockedCommands: plugin.deniedCommands.map((d) => d.prefix),
      contextFiles: plugin.contextFiles,
    },
    skipped: plugin.diagnostics
      .filter((d) => d.severity === "error")
      .map((d) => ({ kind: "entry", name: d.path ?? "", reason: d.message, ...(d.path ? { path: d.path } : {}) })),
    informational: plugin.informational,
    diagnostics: [...plugin.diagnostics],
    needsTrust: hasProcesses && plugin.level === "project" && !trusted,
  };
}

/** The hand-off other runtimes consume (MCP servers, workflows). */
export function toHandOff(plugin: LoadedPlugin): PluginHandOff {
  return {
    plugin: plugin.manifest.name,
    manifestPath: plugin.manifestPath,
    root: plugin.root,
    userLevel: plugin.level === "user",
    mcpServers: plugin.mcpServers,
    ...(plugin.mcpServersFile ? { mcpServersFile: plugin.mcpServersFile } : {}),
    mcpServerFiles: plugin.mcpServerFiles,
    commands: plugin.commandPaths,
    ...(plugin.contextFiles.length ? { contextFiles: plugin.contextFiles } : {}),
    ...(plugin.layout === "gemini" ? { kind: "gemini-extension" as const } : {}),
    workflows: plugin.workflows,
    ...(plugin.workflowsFile ? { workflowsFile: plugin.workflowsFile } : {}),
    claudeHooks: {
      inline: plugin.manifest.claudeHooksInline,
      files: [...new Set(plugin.informational.flatMap((i) => (i.kind === "hook-event" && i.file ? [i.file] : [])))],
    },
  };
}
