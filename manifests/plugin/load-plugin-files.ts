import { parseJsonText, userItemProblem, yourOwners } from "../../core/index.js";
import type { PluginFile } from "./discover-plugin-files.js";
import type { FailedPluginFile, LoadedPlugin, PluginLoadResult } from "./load-plugins.js";
import { pluginDiagnostic as diag } from "./load-plugins.js";
import { statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { parseGeminiExtension } from "./gemini-extension.js";
import { tooDeepMessage } from "../manifest-depth.js";
import { loadBundledMcpServers, loadBundledWorkflows, resolveInsideRoot } from "./plugin-bundles.js";
import { collectPluginExtras } from "./plugin-extras.js";
import { nodePluginFs, type PluginFs } from "./plugin-fs.js";
import type { ManifestIssue } from "./plugin-manifest-schema.js";
import { parsePluginManifest } from "./parse-plugin-manifest.js";

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
    return loadPluginFile(file, file.level === "user" ? ownFilesOnly(file.root, fs) : fs);
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
  let raw: unknown;
  if (file.folderOnly) raw = { name: basename(file.root) };
  else {
    // A manifest linked outside its plugin folder (to a secret, say) is not read: its parse error would quote it.
    // (a device or FIFO is left to the bounded reader, which names it by kind, unread)
    const inside =
      file.level === "project" && isRegularFile(file.path) ? resolveInsideRoot(file.root, relative(file.root, file.path)) : ({ ok: true } as const);
    if (!inside.ok) return fail(`The manifest was not read: ${inside.reason}; the plugin was not loaded. Copy the file into the plugin folder.`);
    let text: string;
    try {
      text = fs.readText(file.path);
    } catch (error) {
      return fail(`The manifest cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); the plugin was not loaded.`);
    }
    try {
      raw = parseJsonText(text);
    } catch (error) {
      return fail(`The manifest is not valid JSON (${(error as Error).message}); the plugin was not loaded.`);
    }
    const deep = tooDeepMessage(raw);
    if (deep) return fail(`The manifest cannot be used: ${deep}; the plugin was not loaded.`);
  }
  if (file.layout === "gemini") return loadExtension(file, raw, fs);
  const parsed = parsePluginManifest(raw);
  const issues: ManifestIssue[] = [...parsed.issues];
  if (!parsed.manifest) return { file: file.path, level: file.level, diagnostics: issues.map((i) => diag(file.path, i)) };
  const manifest = parsed.manifest;
  const mcp = loadBundledMcpServers(manifest.mcpServers, file.path, file.root, fs, issues, {
    rootMcpJson: !file.rootIsWorkspaceDir,
    confined: file.level === "project",
  });
  const workflows = loadBundledWorkflows(manifest.workflows, file.path, file.root, fs, issues);
  const commandPaths = [join(file.root, "commands"), ...customCommandPaths(manifest.commands ?? [], file.root, fs, issues)];
  const informational = collectPluginExtras(manifest, file.root, file.layout, fs, issues, commandPaths);
  return {
    manifest,
    manifestPath: file.path,
    root: file.root,
    level: file.level,
    layout: file.layout,
    mcpServers: mcp.servers,
    mcpServersFile: Object.keys(mcp.servers).length ? mcp.file : undefined,
    mcpServerFiles: mcp.serverFiles,
    commandPaths,
    contextFiles: [],
    deniedCommands: [],
    workflows: workflows.workflows,
    workflowsFile: workflows.workflows.length ? workflows.file : undefined,
    informational,
    diagnostics: issues.map((i) => diag(file.path, i)),
  };
}

/** A Gemini CLI extension as a plugin: its MCP servers, exclusions, context files and `commands/*.toml`. */
function loadExtension(file: PluginFile, raw: unknown, fs: PluginFs): LoadedPlugin | FailedPluginFile {
  const parsed = parseGeminiExtension(raw, file.root, basename(file.root), (p) => fs.isFile(p), file.workspaceRoot);
  const issues = parsed.issues;
  if (!parsed.extension) return { file: file.path, level: file.level, diagnostics: issues.map((i) => diag(file.path, i)) };
  const { manifest, mcpServers, contextFiles, deniedCommands } = parsed.extension;
  const mcp = loadBundledMcpServers(mcpServers, file.path, file.root, fs, issues, { rootMcpJson: false, expand: (v) => v });
  const commandPaths = [join(file.root, "commands")];
  return {
    manifest,
    manifestPath: file.path,
    root: file.root,
    level: file.level,
    layout: file.layout,
    mcpServers: mcp.servers,
    mcpServersFile: Object.keys(mcp.servers).length ? file.path : undefined,
    mcpServerFiles: mcp.serverFiles,
    commandPaths,
    contextFiles,
    deniedCommands,
    workflows: [],
    informational: collectPluginExtras(manifest, file.root, file.layout, fs, issues, commandPaths),
    diagnostics: issues.map((i) => diag(file.path, i)),
  };
}

/** Resolves `commands` paths of plugin.json inside the plugin root; missing or escaping ones become warnings. */
function customCommandPaths(refs: readonly { ref: string; path: string }[], root: string, fs: PluginFs, issues: ManifestIssue[]): string[] {
  const out: string[] = [];
  for (const { ref, path } of refs) {
    const target = resolveInsideRoot(root, ref);
    if (!target.ok) issues.push({ severity: "warning", path, message: `commands ${target.reason}; it was ignored.` });
    else if (!fs.exists(target.path)) issues.push({ severity: "warning", path, message: `commands: ${target.path} does not exist; it was ignored.` });
    else if (target.path !== join(root, "commands")) out.push(target.path);
  }
  return out;
}

/** True when `path` leads to a regular file. Never throws. */
function isRegularFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

/**
 * `fs` whose `readText` refuses a file of a user-level plugin (a bundled MCP manifest, workflows, hooks.json) that
 * another user owns or every user may write, or that lies in such a folder below the plugin's root: it would speak for you.
 */
function ownFilesOnly(root: string, fs: PluginFs): PluginFs {
  const owners = yourOwners(process.env);
  return {
    ...fs,
    readText(path) {
      const problem = userItemProblem(root, path, owners);
      if (problem !== undefined) throw new Error(`${problem}; keel reads a user-level plugin's files only where they are yours and writable by you only`);
      return fs.readText(path);
    },
  };
}
