import { sep } from "node:path";
import { joinJsonPath } from "./json-path.js";
import { parsePluginManifest } from "./parse-plugin-manifest.js";
import { resolveInsideRoot } from "./plugin-bundles.js";
import { jsonTypeName, type ManifestIssue, type PluginManifest } from "./plugin-manifest-schema.js";
import { setOwn } from "./set-own.js";

/** Gemini CLI's built-in tool names and keel's counterparts (`null`: keel has none). */
export const GEMINI_TOOL_NAMES: ReadonlyMap<string, string | null> = new Map([
  ["run_shell_command", "bash"],
  ["ShellTool", "bash"],
  ["read_file", "read_file"],
  ["write_file", "write_file"],
  ["replace", "edit_file"],
  ["glob", "glob"],
  ["search_file_content", "grep"],
  ["list_directory", "list_dir"],
  ["read_many_files", null],
  ["web_fetch", null],
  ["google_web_search", null],
  ["save_memory", null],
]);

/** A command prefix a Gemini extension excludes (`run_shell_command(rm)`): bash calls running it are blocked. */
export interface DeniedCommand {
  /** The command prefix as written (`rm -rf`). */
  prefix: string;
  /** JSON path in the manifest. */
  path: string;
}

/** What a gemini-extension.json declares, in keel's terms. */
export interface GeminiExtension {
  manifest: PluginManifest;
  /** `mcpServers` converted to keel's server format, `${extensionPath}` and `${/}` expanded. */
  mcpServers: Record<string, unknown>;
  /** Context files (absolute, inside the extension folder): `contextFileName`, default `GEMINI.md`. */
  contextFiles: string[];
  deniedCommands: DeniedCommand[];
}

const KNOWN = new Set(["name", "version", "description", "mcpServers", "contextFileName", "excludeTools"]);

/**
 * Reads a decoded gemini-extension.json: `name` (the folder name when absent), `version`,
 * `description`, `mcpServers`, `excludeTools` (Gemini tool names mapped to keel's; `run_shell_command(cmd)`
 * becomes a denied command prefix) and `contextFileName`. Keys beginning with `_` are ignored; other
 * unknown fields get an info issue. Never throws: problems become issues naming the field.
 */
export function parseGeminiExtension(
  raw: unknown,
  root: string,
  folderName: string,
  exists: (path: string) => boolean,
  workspaceRoot?: string,
): { extension?: GeminiExtension; issues: ManifestIssue[] } {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    return {
      issues: [
        { severity: "error", path: "", message: `gemini-extension.json must be a JSON object (got ${jsonTypeName(raw)}); the extension was not loaded.` },
      ],
    };
  const obj = raw as Record<string, unknown>;
  const issues: ManifestIssue[] = [];
  const header = parsePluginManifest({ name: obj.name ?? folderName, version: obj.version, description: obj.description });
  issues.push(...header.issues);
  if (!header.manifest) return { issues };
  const manifest = header.manifest;
  const unknown = Object.keys(obj).filter((k) => !KNOWN.has(k) && !k.startsWith("_"));
  if (unknown.length)
    issues.push({
      severity: "info",
      path: unknown[0]!,
      message: `Gemini CLI extension field${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} ${unknown.length > 1 ? "are" : "is"} not used by keel.`,
    });
  const deniedCommands = excludeTools(obj.excludeTools, manifest, issues);
  const mcpServers = geminiServers(obj.mcpServers, root, workspaceRoot, issues);
  const contextFiles = contextFilesOf(obj.contextFileName, root, exists, issues);
  return { extension: { manifest, mcpServers, contextFiles, deniedCommands }, issues };
}

/** Expands Gemini's `${extensionPath}`, `${workspacePath}` (when known), `${/}` and `${pathSeparator}` in every string of a JSON value. */
export function expandExtensionVars(value: unknown, root: string, workspaceRoot?: string): unknown {
  if (typeof value === "string")
    return value.replace(/\$\{(extensionPath|workspacePath|\/|pathSeparator)\}/g, (whole, v: string) =>
      v === "extensionPath" ? root : v === "workspacePath" ? (workspaceRoot ?? whole) : sep,
    );
  if (Array.isArray(value)) return value.map((v) => expandExtensionVars(v, root, workspaceRoot));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, expandExtensionVars(v, root, workspaceRoot));
    return out;
  }
  return value;
}

function excludeTools(value: unknown, manifest: PluginManifest, issues: ManifestIssue[]): DeniedCommand[] {
  const denied: DeniedCommand[] = [];
  if (value === undefined || value === null) return denied;
  if (!Array.isArray(value)) {
    issues.push({
      severity: "error",
      path: "excludeTools",
      message: `excludeTools must be a list of tool names (got ${jsonTypeName(value)}); it was ignored.`,
    });
    return denied;
  }
  value.forEach((item, i) => {
    const path = joinJsonPath(["excludeTools", i]);
    if (typeof item !== "string" || !item.trim()) {
      issues.push({ severity: "error", path, message: `${path} must be a tool name (got ${jsonTypeName(item)}); the entry was ignored.` });
      return;
    }
    const m = /^\s*([^()\s]+)\s*(?:\((.*)\))?\s*$/s.exec(item);
    if (!m) {
      issues.push({ severity: "error", path, message: `${path} "${item}" is neither a tool name nor tool(specifier); the entry was ignored.` });
      return;
    }
    const [, name, spec] = m as unknown as [string, string, string | undefined];
    const mapped = GEMINI_TOOL_NAMES.has(name) ? GEMINI_TOOL_NAMES.get(name) : name;
    if (mapped === null || mapped === undefined) {
      issues.push({ severity: "info", path, message: `Gemini CLI tool "${name}" has no counterpart in keel; excluding it changes nothing.` });
      return;
    }
    if (spec === undefined) return void manifest.blockedTools.push({ name: mapped, path });
    if (mapped === "bash" && spec.trim()) return void denied.push({ prefix: spec.trim(), path });
    issues.push({
      severity: "warning",
      path,
      message: `${path} "${item}": only run_shell_command takes a command in parentheses; the entry was ignored. Write the bare tool name to block the whole tool.`,
    });
  });
  return denied;
}

/** Gemini's server fields in keel's: `httpUrl` is streamable HTTP, a bare `url` is SSE, `timeout` the call timeout, include/excludeTools the tool filters. */
function geminiServers(value: unknown, root: string, workspaceRoot: string | undefined, issues: ManifestIssue[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (value === undefined || value === null) return out;
  if (typeof value !== "object" || Array.isArray(value)) {
    issues.push({
      severity: "error",
      path: "mcpServers",
      message: `mcpServers must be an object of {name: server} (got ${jsonTypeName(value)}); it was ignored.`,
    });
    return out;
  }
  for (const [name, raw] of Object.entries(value)) {
    if (name.startsWith("_")) continue;
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      issues.push({
        severity: "error",
        path: `mcpServers.${name}`,
        message: `MCP server "${name}" must be an object (got ${jsonTypeName(raw)}); it was skipped.`,
      });
      continue;
    }
    const { httpUrl, timeout, includeTools, excludeTools: exclude, trust, ...rest } = expandExtensionVars(raw, root, workspaceRoot) as Record<string, unknown>;
    const server: Record<string, unknown> = { ...rest };
    if (typeof httpUrl === "string") Object.assign(server, { url: httpUrl, type: server.type ?? "http" });
    else if (typeof server.url === "string" && server.type === undefined) server.type = "sse";
    if (typeof timeout === "number" && Number.isInteger(timeout) && timeout > 0) server.toolTimeoutMs = timeout;
    if (includeTools !== undefined) server.enabledTools = includeTools;
    if (exclude !== undefined) server.disabledTools = exclude;
    if (trust !== undefined)
      issues.push({
        severity: "info",
        path: `mcpServers.${name}.trust`,
        message: `"trust" is Gemini CLI's confirmation bypass; keel ignores it (its permission rules decide; see keel trust and permissions.allow).`,
      });
    setOwn(out, name, server);
  }
  return out;
}

function contextFilesOf(value: unknown, root: string, exists: (path: string) => boolean, issues: ManifestIssue[]): string[] {
  if (value === undefined || value === null) {
    const dflt = resolveInsideRoot(root, "GEMINI.md");
    return dflt.ok && exists(dflt.path) ? [dflt.path] : [];
  }
  const list = Array.isArray(value) ? value : [value];
  const files: string[] = [];
  list.forEach((ref, i) => {
    const path = Array.isArray(value) ? joinJsonPath(["contextFileName", i]) : "contextFileName";
    if (typeof ref !== "string" || !ref.trim()) {
      issues.push({ severity: "error", path, message: `${path} must be a file name (got ${jsonTypeName(ref)}); it was ignored.` });
      return;
    }
    const target = resolveInsideRoot(root, ref.trim());
    if (!target.ok) issues.push({ severity: "error", path, message: `${path} ${target.reason}; it was not loaded.` });
    else if (!exists(target.path)) issues.push({ severity: "warning", path, message: `${path}: ${target.path} does not exist; nothing was loaded from it.` });
    else files.push(target.path);
  });
  return files;
}
