import { isAbsolute, win32 } from "node:path";
import { z } from "zod";
import { hiddenCharacterProblem } from "../identifier-text.js";

/** The six lifecycle hooks a plugin manifest may tap (architecture section 2). */
export const LIFECYCLE_HOOKS = ["beforePrompt", "afterTurn", "onResume", "beforePersist", "beforeDelegate", "afterDelegate"] as const;

/** One of the six lifecycle hook names. */
export type LifecycleHookName = (typeof LIFECYCLE_HOOKS)[number];

/** Hook events of Claude Code (the hooks runtime runs the ones its README lists; the others are recorded). */
export const CLAUDE_HOOK_EVENTS: ReadonlySet<string> = new Set([
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "Notification",
  "UserPromptSubmit",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
  "PreCompact",
  "PermissionRequest",
]);

/** Describes the JSON type of a value for messages: `string`, `number`, `array`, `null`, ... */
export function jsonTypeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** Trims strings; blank strings and null count as absent. */
function blankToUndefined(value: unknown): unknown {
  if (value === null) return undefined;
  if (typeof value === "string") return value.trim() === "" ? undefined : value.trim();
  return value;
}

const stringSchema = z.string({ error: (issue) => (issue.input === undefined ? "is required" : `must be a string (got ${jsonTypeName(issue.input)})`) });

/** A required, trimmed, non-blank string. */
export const textSchema = z.preprocess(blankToUndefined, stringSchema);

/** An optional trimmed string (blank = absent). */
export const optionalTextSchema = z.preprocess(blankToUndefined, stringSchema.optional());

/** A name (plugin, tool, server, workflow): a required trimmed string with no control, format or other invisible character (see hiddenCharacterProblem). */
export const identifierSchema = textSchema.superRefine((s, ctx) => {
  const problem = typeof s === "string" ? hiddenCharacterProblem(s) : undefined;
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/** A tool name: a non-blank string without whitespace or invisible characters. */
export const toolNameSchema = identifierSchema.refine((s) => !/\s/.test(s as string), { message: "must not contain whitespace" });

const objectSchema = z.record(z.string(), z.unknown(), { error: (issue) => `must be an object (got ${jsonTypeName(issue.input)})` });

/** The top level: `name` required, known scalar fields typed, unknown fields kept and ignored. */
export const manifestHeaderSchema = z.object({ name: identifierSchema, version: optionalTextSchema, description: optionalTextSchema }).loose();

/** `tool_aliases[i]`: `{name, base_tool | baseTool, description?}`. */
export const toolAliasItemSchema = z
  .object({ name: toolNameSchema, base_tool: optionalTextSchema, baseTool: optionalTextSchema, description: optionalTextSchema })
  .loose()
  .superRefine((v, ctx) => {
    if (v.base_tool === undefined && v.baseTool === undefined) ctx.addIssue({ code: "custom", path: ["base_tool"], message: "is required" });
  });

/** `virtual_tools[i]`: `{name, description?, response_template | responseTemplate | response, parameters?, metadata?}`. */
export const virtualToolItemSchema = z
  .object({
    name: toolNameSchema,
    description: optionalTextSchema,
    response_template: optionalTextSchema,
    responseTemplate: optionalTextSchema,
    response: optionalTextSchema,
    parameters: objectSchema.optional(),
    metadata: objectSchema.optional(),
  })
  .loose()
  .superRefine((v, ctx) => {
    if (v.response_template === undefined && v.responseTemplate === undefined && v.response === undefined)
      ctx.addIssue({ code: "custom", path: ["response_template"], message: "is required" });
    const type = v.parameters?.type;
    if (type !== undefined && type !== "object")
      ctx.addIssue({ code: "custom", path: ["parameters", "type"], message: `must be "object" (tool arguments are an object)` });
  });

/** `tool_hooks[tool]` given as an object. */
export const toolHookObjectSchema = z
  .object({
    beforeTool: optionalTextSchema,
    before_tool: optionalTextSchema,
    afterResult: optionalTextSchema,
    after_result: optionalTextSchema,
    blockMessage: optionalTextSchema,
    block_message: optionalTextSchema,
  })
  .loose();

/** `tool_hooks[tool]`: a bare string (means `afterResult`) or an object. */
export const toolHookValueSchema = z.union([textSchema, toolHookObjectSchema], {
  error: (issue) => `must be a string or an object with beforeTool/afterResult/blockMessage (got ${jsonTypeName(issue.input)})`,
});

/** A lifecycle hook value: a string or a list of strings. */
export const hookTextsSchema = z.union([textSchema, z.array(z.unknown())], {
  error: (issue) => `must be a string or a list of strings (got ${jsonTypeName(issue.input)})`,
});

/** `main`: a code plugin's module, a relative path inside the plugin folder (checked again, symlinks resolved, when it loads). */
export const mainModuleSchema = optionalTextSchema.refine((s) => s === undefined || !(isAbsolute(s) || win32.isAbsolute(s) || s.includes("\0")), {
  message: 'must be a path relative to the plugin folder, e.g. "./index.mjs"',
});

/** A JSON object map (`tool_hooks`, `hooks`, `mcpServers` inline). */
export const jsonObjectSchema = objectSchema;

/** An alias a plugin declares. `path` is its JSON path in the manifest. */
export interface PluginAliasSpec {
  name: string;
  baseTool: string;
  description?: string;
  path: string;
}

/** A virtual tool a plugin declares. */
export interface VirtualToolSpec {
  name: string;
  description?: string;
  responseTemplate: string;
  parameters?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  path: string;
}

/** Texts attached to one tool (or `*`). */
export interface ToolHookSpec {
  tool: string;
  beforeTool?: string;
  afterResult?: string;
  blockMessage?: string;
  path: string;
}

/** A tool a plugin blocks. */
export interface BlockedToolSpec {
  name: string;
  path: string;
}

/** Texts a plugin adds at one lifecycle hook. */
export interface LifecycleHookSpec {
  hook: LifecycleHookName;
  texts: string[];
  path: string;
}

/** A problem found while parsing one manifest (becomes a diagnostic naming the file). */
export interface ManifestIssue {
  severity: "error" | "warning" | "info";
  path: string;
  message: string;
}

/** A parsed plugin manifest, normalized to camelCase; `extra` keeps unknown top-level fields. */
export interface PluginManifest {
  name: string;
  version?: string;
  description?: string;
  aliases: PluginAliasSpec[];
  virtualTools: VirtualToolSpec[];
  blockedTools: BlockedToolSpec[];
  toolHooks: ToolHookSpec[];
  hooks: LifecycleHookSpec[];
  /** Claude Code hook events named in `hooks`. */
  claudeHookEvents: string[];
  /** The Claude Code events of an inline `hooks` object, as written (`{"PreToolUse": [...]}`), run by the hooks runtime. */
  claudeHooksInline: Record<string, unknown>;
  /** `hooks` given as a path (Claude Code style), relative to the plugin root. */
  claudeHookFiles: string[];
  /** Raw `mcpServers` (object or path), handed to the loader. */
  mcpServers?: unknown;
  /** Raw `workflows` (list, object or path). */
  workflows?: unknown;
  /** `commands` paths (Claude Code: files or folders relative to the plugin root, in addition to `commands/`). */
  commands?: { ref: string; path: string }[];
  /** `main`: the code plugin module (relative to the plugin root) whose `apply(keel)` runs when the plugin's level is trusted. */
  main?: string;
  extra: Record<string, unknown>;
}
