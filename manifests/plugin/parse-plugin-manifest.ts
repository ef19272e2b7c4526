import type { z } from "zod";
import { joinJsonPath } from "./json-path.js";
import { setOwn } from "./set-own.js";
import {
  CLAUDE_HOOK_EVENTS,
  LIFECYCLE_HOOKS,
  hookTextsSchema,
  jsonObjectSchema,
  jsonTypeName,
  mainModuleSchema,
  manifestHeaderSchema,
  optionalTextSchema,
  textSchema,
  toolAliasItemSchema,
  toolHookValueSchema,
  toolNameSchema,
  virtualToolItemSchema,
  type LifecycleHookName,
  type ManifestIssue,
  type PluginManifest,
} from "./plugin-manifest-schema.js";

/** Outcome of parsing: the manifest (absent when the file cannot load at all) and every issue found. */
export interface ParsedPluginManifest {
  manifest?: PluginManifest;
  issues: ManifestIssue[];
}

const KNOWN_FIELDS = new Set([
  "name",
  "version",
  "description",
  "hooks",
  "tool_aliases",
  "toolAliases",
  "virtual_tools",
  "virtualTools",
  "runtimeTools",
  "runtime_tools",
  "tool_hooks",
  "toolHooks",
  "blocked_tools",
  "blockedTools",
  "mcpServers",
  "mcp_servers",
  "workflows",
  "commands",
  "main",
]);

const HOOK_KEYS: ReadonlyMap<string, LifecycleHookName> = new Map(
  LIFECYCLE_HOOKS.flatMap(
    (h) =>
      [
        [h, h],
        [h.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), h],
      ] as [string, LifecycleHookName][],
  ),
);

/**
 * Parses one decoded plugin.json value with zod. Never throws: a bad item or field is
 * skipped with an issue (JSON path + reason) and the rest of the plugin still loads.
 */
export function parsePluginManifest(raw: unknown): ParsedPluginManifest {
  const issues: ManifestIssue[] = [];
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    issues.push({ severity: "error", path: "", message: `The manifest must be a JSON object (got ${jsonTypeName(raw)}); the plugin was not loaded.` });
    return { issues };
  }
  const obj = raw as Record<string, unknown>;
  const header = manifestHeaderSchema.safeParse(obj);
  if (!header.success) {
    const fatal = header.error.issues.find((i) => i.path[0] === "name");
    if (fatal) {
      issues.push({ severity: "error", path: "name", message: `name ${fatal.message}; the plugin was not loaded.` });
      return { issues };
    }
  }
  const name = textSchema.parse(obj.name) as string;
  const version = field(obj, "version", issues);
  const description = field(obj, "description", issues);
  const manifest: PluginManifest = {
    name,
    version,
    description,
    aliases: [],
    virtualTools: [],
    blockedTools: [],
    toolHooks: [],
    hooks: [],
    claudeHookEvents: [],
    claudeHookFiles: [],
    claudeHooksInline: {},
    extra: {},
  };
  // keys beginning with `_` ("_comment") are notes for people and ignored everywhere
  for (const [key, value] of Object.entries(obj)) if (!KNOWN_FIELDS.has(key) && !key.startsWith("_")) setOwn(manifest.extra, key, value);

  for (const key of ["tool_aliases", "toolAliases"]) {
    eachItem(obj, key, issues, "alias", (item, i) => {
      const r = toolAliasItemSchema.safeParse(item);
      if (!r.success) return report(issues, [key, i], r.error, "the alias was skipped");
      manifest.aliases.push({
        name: r.data.name,
        baseTool: (r.data.base_tool ?? r.data.baseTool)!,
        description: r.data.description,
        path: joinJsonPath([key, i]),
      });
    });
  }
  // `runtimeTools` is claw-code's name for the same thing
  for (const key of ["virtual_tools", "virtualTools", "runtimeTools", "runtime_tools"]) {
    eachItem(obj, key, issues, "virtual tool", (item, i) => {
      const r = virtualToolItemSchema.safeParse(item);
      if (!r.success) return report(issues, [key, i], r.error, "the virtual tool was skipped");
      const d = r.data;
      manifest.virtualTools.push({
        name: d.name,
        description: d.description,
        responseTemplate: (d.response_template ?? d.responseTemplate ?? d.response)!,
        parameters: d.parameters,
        metadata: d.metadata,
        path: joinJsonPath([key, i]),
      });
    });
  }
  for (const key of ["blocked_tools", "blockedTools"]) {
    eachItem(obj, key, issues, "blocked tool", (item, i) => {
      const r = toolNameSchema.safeParse(item);
      if (!r.success) return report(issues, [key, i], r.error, "the entry was ignored");
      manifest.blockedTools.push({ name: r.data, path: joinJsonPath([key, i]) });
    });
  }
  for (const key of ["tool_hooks", "toolHooks"]) parseToolHooks(obj, key, manifest, issues);
  if (obj.hooks !== undefined) parseLifecycleHooks(obj.hooks, manifest, issues);
  manifest.mcpServers = obj.mcpServers ?? obj.mcp_servers;
  manifest.workflows = obj.workflows;
  manifest.commands = commandPaths(obj.commands, issues);
  for (const [key, what] of UNFOLLOWED_PATH_FIELDS)
    if (obj[key] !== undefined && obj[key] !== null)
      issues.push({
        severity: "info",
        path: key,
        message: `keel does not read "${key}" (Claude Code's ${what}); it has no effect here.${key === "agents" || key === "skills" ? ` keel loads only the plugin's own ${key}/ folder: move the files there.` : ""}`,
      });
  const main = mainModuleSchema.safeParse(obj.main);
  if (main.success) manifest.main = main.data;
  else report(issues, ["main"], main.error, "the code module was not loaded");
  return { manifest, issues };
}

/** Claude Code plugin.json fields naming files keel does not load, with what they are. */
const UNFOLLOWED_PATH_FIELDS: readonly (readonly [string, string])[] = [
  ["agents", "paths of agent files besides agents/"],
  ["skills", "paths of skill folders besides skills/"],
  ["outputStyles", "output styles"],
  ["lspServers", "LSP servers"],
];

/** `commands`: a path or a list of paths (files or folders, relative to the plugin root), as Claude Code's plugin.json has it. */
function commandPaths(value: unknown, issues: ManifestIssue[]): { ref: string; path: string }[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  const out: { ref: string; path: string }[] = [];
  list.forEach((item, i) => {
    if (typeof item === "string" && item.trim()) out.push({ ref: item.trim(), path: Array.isArray(value) ? joinJsonPath(["commands", i]) : "commands" });
    else
      issues.push({
        severity: "warning",
        path: Array.isArray(value) ? joinJsonPath(["commands", i]) : "commands",
        message: `commands must be a path or a list of paths to command files or folders (got ${jsonTypeName(item)}); the entry was ignored.`,
      });
  });
  return out;
}

function field(obj: Record<string, unknown>, key: "version" | "description", issues: ManifestIssue[]): string | undefined {
  const r = optionalTextSchema.safeParse(obj[key]);
  if (r.success) return r.data;
  report(issues, [key], r.error, "the field was ignored");
  return undefined;
}

function eachItem(obj: Record<string, unknown>, key: string, issues: ManifestIssue[], what: string, fn: (item: unknown, i: number) => void): void {
  const value = obj[key];
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) {
    issues.push({ severity: "error", path: key, message: `${key} must be a list of ${what} entries (got ${jsonTypeName(value)}); it was ignored.` });
    return;
  }
  value.forEach((item, i) => fn(item, i));
}

function report(issues: ManifestIssue[], prefix: PropertyKey[], error: z.ZodError, consequence: string): void {
  const seen = new Set<string>();
  for (const issue of error.issues) {
    const path = joinJsonPath(prefix, issue.path);
    const message = `${path || "value"} ${issue.message}; ${consequence}.`;
    if (seen.has(message)) continue;
    seen.add(message);
    issues.push({ severity: "error", path, message });
  }
}

function parseToolHooks(obj: Record<string, unknown>, key: string, manifest: PluginManifest, issues: ManifestIssue[]): void {
  const value = obj[key];
  if (value === undefined || value === null) return;
  const map = jsonObjectSchema.safeParse(value);
  if (!map.success) return report(issues, [key], map.error, "it was ignored");
  for (const [tool, hookValue] of Object.entries(map.data)) {
    if (tool.startsWith("_")) continue;
    const toolName = tool.trim();
    const r = toolHookValueSchema.safeParse(hookValue);
    if (!toolName || !r.success) {
      if (!r.success) report(issues, [key, tool], r.error, "the hook was ignored");
      else issues.push({ severity: "error", path: joinJsonPath([key, tool]), message: `A tool hook needs a tool name (or "*"); the hook was ignored.` });
      continue;
    }
    const path = joinJsonPath([key, tool]);
    if (typeof r.data === "string") manifest.toolHooks.push({ tool: toolName, afterResult: r.data, path });
    else {
      const h = r.data;
      const spec = {
        tool: toolName,
        beforeTool: h.beforeTool ?? h.before_tool,
        afterResult: h.afterResult ?? h.after_result,
        blockMessage: h.blockMessage ?? h.block_message,
        path,
      };
      if (spec.beforeTool || spec.afterResult || spec.blockMessage) manifest.toolHooks.push(spec);
      else issues.push({ severity: "warning", path, message: `${path} has no beforeTool, afterResult or blockMessage text; it does nothing.` });
    }
  }
}

function parseLifecycleHooks(value: unknown, manifest: PluginManifest, issues: ManifestIssue[]): void {
  if (typeof value === "string" || Array.isArray(value)) {
    const files = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === "string" && v.trim() !== "");
    manifest.claudeHookFiles.push(...files.map((f) => f.trim()));
    return;
  }
  const map = jsonObjectSchema.safeParse(value);
  if (!map.success) return report(issues, ["hooks"], map.error, "it was ignored");
  for (const [key, hookValue] of Object.entries(map.data)) {
    if (key.startsWith("_")) continue;
    const hook = HOOK_KEYS.get(key);
    if (!hook) {
      if (CLAUDE_HOOK_EVENTS.has(key)) {
        manifest.claudeHookEvents.push(key);
        setOwn(manifest.claudeHooksInline, key, hookValue);
      } else
        issues.push({
          severity: "warning",
          path: joinJsonPath(["hooks", key]),
          message: `Unknown hook "${key}" was ignored; known hooks: ${LIFECYCLE_HOOKS.join(", ")}.`,
        });
      continue;
    }
    const r = hookTextsSchema.safeParse(hookValue);
    if (!r.success) {
      report(issues, ["hooks", key], r.error, "the hook was ignored");
      continue;
    }
    const texts: string[] = [];
    if (typeof r.data === "string") texts.push(r.data);
    else
      r.data.forEach((item, i) => {
        const t = textSchema.safeParse(item);
        if (t.success) texts.push(t.data as string);
        else if (!(typeof item === "string" || item === null)) report(issues, ["hooks", key, i], t.error, "the text was ignored");
      });
    if (texts.length) manifest.hooks.push({ hook, texts, path: joinJsonPath(["hooks", key]) });
  }
}
