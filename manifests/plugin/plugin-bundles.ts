import { realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { parseJsonText, realOrSelf } from "../../core/index.js";
import { passesExcludedDir } from "../discovery-scope.js";
import { tooDeepMessage } from "../manifest-depth.js";
import { jsonTypeName, type ManifestIssue } from "./plugin-manifest-schema.js";
import type { PluginFs } from "./plugin-fs.js";
import { expandPluginRoot } from "./plugin-root-vars.js";
import { setOwn } from "./set-own.js";

/** MCP servers a plugin bundles, ready to hand to the MCP runtime. */
export interface BundledMcpServers {
  servers: Record<string, unknown>;
  /** File the first servers came from. */
  file?: string;
  /** File each server came from (plugin.json, a file `mcpServers` names, the plugin-root `.mcp.json`). */
  serverFiles: Record<string, string>;
}

/** How to read a plugin's MCP servers. */
export interface McpBundleOptions {
  /** Also read `<root>/.mcp.json` (Claude Code plugins ship their servers there). */
  rootMcpJson: boolean;
  /** Read that `.mcp.json` only when it really lies inside the plugin folder (a workspace plugin's: a link to a secret is not read). */
  confined?: boolean;
  /** Expands the plugin's variables in a server config (default: `${CLAUDE_PLUGIN_ROOT}` / `${PLUGIN_ROOT}`). */
  expand?: (config: unknown) => unknown;
}

/** Workflows a plugin bundles, raw. */
export interface BundledWorkflows {
  workflows: unknown[];
  file?: string;
}

/**
 * Resolves a manifest-relative path inside the plugin root, or explains why not: it may not leave
 * the plugin directory, nor pass through `node_modules/`, `.git/` or `.keel/worktrees/` — as
 * written, nor where it really leads when it exists (a symbolic link to another project's file or to
 * `~/.ssh` is refused). A path that does not exist is returned for the caller to report.
 */
export function resolveInsideRoot(root: string, ref: string): { ok: true; path: string } | { ok: false; reason: string } {
  const expanded = String(expandPluginRoot(ref, root));
  const path = resolve(root, expanded);
  const rel = relative(root, path);
  if (leaves(rel)) return { ok: false, reason: `"${ref}" points outside the plugin directory` };
  if (passesExcludedDir(rel)) return { ok: false, reason: excludedReason(ref) };
  let real: string;
  try {
    real = realpathSync.native(path);
  } catch {
    return { ok: true, path };
  }
  const realRel = relative(realOrSelf(root), real);
  if (leaves(realRel)) return { ok: false, reason: `"${ref}" leads outside the plugin directory through a symbolic link (to ${real})` };
  if (passesExcludedDir(realRel)) return { ok: false, reason: excludedReason(ref) };
  return { ok: true, path };
}

function leaves(rel: string): boolean {
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

function excludedReason(ref: string): string {
  return `"${ref}" points into node_modules/, .git/ or .keel/worktrees/, which keel never reads manifests from (move the file into the plugin directory itself)`;
}

function readJson(fs: PluginFs, path: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  let text: string;
  try {
    text = fs.readText(path);
  } catch (error) {
    return { ok: false, reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    return { ok: false, reason: `is not valid JSON (${(error as Error).message})` };
  }
  const deep = tooDeepMessage(value);
  return deep ? { ok: false, reason: `cannot be used: ${deep}` } : { ok: true, value };
}

/**
 * Reads `mcpServers`: an inline `{name: config}` map, a path or a list of paths to JSON files holding
 * `{mcpServers: {...}}`, `{servers: [{name, ...}]}` or a bare map; then (with `rootMcpJson`) the
 * plugin-root `.mcp.json` unless a path already named it. The first server of a name wins; keys
 * beginning with `_` are ignored. Plugin variables are expanded. Never throws.
 */
export function loadBundledMcpServers(
  raw: unknown,
  manifestPath: string,
  root: string,
  fs: PluginFs,
  issues: ManifestIssue[],
  options: McpBundleOptions = { rootMcpJson: false },
): BundledMcpServers {
  const out: BundledMcpServers = { servers: {}, serverFiles: {} };
  const expand = options.expand ?? ((v: unknown) => expandPluginRoot(v, root));
  const readFiles = new Set<string>();
  const addMap = (map: unknown, file: string, where: string, path: string) => {
    if (map === null || typeof map !== "object" || Array.isArray(map)) {
      issues.push({
        severity: "error",
        path,
        message: `${where} must be an object of servers or a path to a JSON file (got ${jsonTypeName(map)}); its MCP servers were skipped.`,
      });
      return;
    }
    for (const [name, config] of Object.entries(map)) {
      if (name.startsWith("_")) continue;
      if (config === null || typeof config !== "object" || Array.isArray(config)) {
        issues.push({
          severity: "error",
          path: `${path}.${name}`,
          message: `MCP server "${name}" must be an object (got ${jsonTypeName(config)}); it was skipped.`,
        });
        continue;
      }
      if (Object.hasOwn(out.servers, name)) {
        issues.push({
          severity: "warning",
          path: `${path}.${name}`,
          message: `MCP server "${name}" is defined again in ${file}; the definition in ${out.serverFiles[name]} wins. Rename one of them to use both.`,
        });
        continue;
      }
      setOwn(out.servers, name, expand(config));
      setOwn(out.serverFiles, name, file);
      out.file ??= file;
    }
  };
  const addFile = (ref: string, path: string) => {
    const target = resolveInsideRoot(root, ref);
    if (!target.ok) return void issues.push({ severity: "error", path, message: `mcpServers ${target.reason}; its MCP servers were skipped.` });
    readFiles.add(target.path);
    const json = readJson(fs, target.path);
    if (!json.ok) return void issues.push({ severity: "error", path, message: `The MCP file ${target.path} ${json.reason}; its MCP servers were skipped.` });
    addMap(serverMapOf(json.value), target.path, ref, path);
  };
  if (typeof raw === "string" && raw.trim()) addFile(raw, "mcpServers");
  else if (Array.isArray(raw))
    raw.forEach((ref, i) => {
      if (typeof ref === "string" && ref.trim()) addFile(ref, `mcpServers[${i}]`);
      else
        issues.push({
          severity: "error",
          path: `mcpServers[${i}]`,
          message: `mcpServers[${i}] must be a path to a JSON file (got ${jsonTypeName(ref)}); it was skipped.`,
        });
    });
  else if (raw !== undefined && raw !== null && raw !== "") addMap(raw, manifestPath, "mcpServers", "mcpServers");
  const rootFile = join(root, ".mcp.json");
  if (options.rootMcpJson && !readFiles.has(rootFile) && fs.isFile(rootFile)) {
    // A link to another project's file or to a secret is not read: its parse error would quote it.
    const target = options.confined ? resolveInsideRoot(root, ".mcp.json") : ({ ok: true } as const);
    const json = target.ok ? readJson(fs, rootFile) : ({ ok: false, reason: `was skipped: ${target.reason}` } as const);
    if (!json.ok) issues.push({ severity: "error", path: "", message: `The plugin's MCP file ${rootFile} ${json.reason}; its MCP servers were skipped.` });
    else addMap(serverMapOf(json.value), rootFile, ".mcp.json", "mcpServers");
  }
  return out;
}

/** The server map of an MCP JSON document: `mcpServers`, a `servers` list, or the document itself. */
function serverMapOf(value: unknown): unknown {
  const v = value as Record<string, unknown> | null;
  return v && typeof v === "object" && !Array.isArray(v) && ("mcpServers" in v || Array.isArray(v.servers)) ? (v.mcpServers ?? listToMap(v.servers)) : v;
}

function listToMap(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of Array.isArray(list) ? list : []) {
    const name = (item as { name?: unknown })?.name;
    if (typeof name === "string" && name.trim()) setOwn(out, name.trim(), item);
  }
  return out;
}

/**
 * Reads `workflows`: an inline list (or one object), or a path to a JSON file holding
 * `{workflows: [...]}`, `{workflow: {...}}` or a list. Items are handed over raw. Never throws.
 */
export function loadBundledWorkflows(raw: unknown, manifestPath: string, root: string, fs: PluginFs, issues: ManifestIssue[]): BundledWorkflows {
  if (raw === undefined || raw === null || raw === "") return { workflows: [] };
  if (Array.isArray(raw)) return { workflows: raw, file: manifestPath };
  if (typeof raw === "object") return { workflows: [raw], file: manifestPath };
  if (typeof raw !== "string") {
    issues.push({
      severity: "error",
      path: "workflows",
      message: `workflows must be a list or a path to a JSON file (got ${jsonTypeName(raw)}); it was ignored.`,
    });
    return { workflows: [] };
  }
  const target = resolveInsideRoot(root, raw);
  if (!target.ok) {
    issues.push({ severity: "error", path: "workflows", message: `workflows ${target.reason}; it was ignored.` });
    return { workflows: [] };
  }
  const json = readJson(fs, target.path);
  if (!json.ok) {
    issues.push({ severity: "error", path: "workflows", message: `The workflows file ${target.path} ${json.reason}; it was ignored.` });
    return { workflows: [] };
  }
  const v = json.value as Record<string, unknown> | null;
  if (Array.isArray(v)) return { workflows: v, file: target.path };
  if (v && typeof v === "object" && Array.isArray(v.workflows)) return { workflows: v.workflows, file: target.path };
  if (v && typeof v === "object" && v.workflow && typeof v.workflow === "object") return { workflows: [v.workflow], file: target.path };
  issues.push({
    severity: "error",
    path: "workflows",
    message: `The workflows file ${target.path} must hold a list, {"workflows": [...]} or {"workflow": {...}}; it was ignored.`,
  });
  return { workflows: [] };
}
