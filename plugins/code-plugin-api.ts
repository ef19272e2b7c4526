import type { JsonSchema, KeelHooks, RiskTag, ToolContext, ToolResult } from "../core/index.js";

/** The host hooks a code plugin may tap (the host's own tapable hooks, typed; see core/hooks.ts for each context). */
export type CodePluginHooks = Pick<
  KeelHooks,
  "beforePrompt" | "afterTurn" | "onResume" | "beforePersist" | "beforeDelegate" | "afterDelegate" | "beforeTool" | "afterResult" | "toolsChanged"
>;

/** The hook names `keel.hooks` exposes, in the order the README lists them. */
export const CODE_PLUGIN_HOOKS = [
  "beforePrompt",
  "afterTurn",
  "onResume",
  "beforePersist",
  "beforeDelegate",
  "afterDelegate",
  "beforeTool",
  "afterResult",
  "toolsChanged",
] as const satisfies readonly (keyof CodePluginHooks)[];

/** A zod (v4) schema, recognised by its `_zod` internals; converted to JSON Schema with `z.toJSONSchema`. */
export interface ZodSchemaLike {
  _zod: unknown;
}

/** A tool a code plugin registers: it runs through the whole pipeline (validation, hooks, permission, truncation, events) like any other. */
export interface CodePluginTool<I = unknown> {
  name: string;
  description: string;
  /** The input's JSON Schema (`type: "object"`), or a zod object schema. */
  inputSchema: JsonSchema | ZodSchemaLike;
  /** Risk tags; default `["execute"]` (a call asks unless a rule allows it). `["read"]` with `readOnly` is allowed by default. */
  risk?: RiskTag[];
  /** True when the tool changes nothing (default false). */
  readOnly?: boolean;
  /** Execution timeout in milliseconds (default: the pipeline's). */
  timeoutMs?: number;
  /** Runs the call with the validated input; a string result is the content the model sees. Throwing fails the call (`execution_failed`). */
  execute(input: I, ctx: ToolContext): Promise<ToolResult | string> | ToolResult | string;
}

/** What a code plugin's `apply(keel)` receives. */
export interface CodePluginApi {
  /** The plugin's name (from its manifest); use it as the tap name. */
  readonly name: string;
  /** The folder its code runs from (absolute, symlinks resolved): the plugin folder, or for a workspace plugin pinned by `keel trust`, keel's read-only copy of it (plugin-snapshot.ts). */
  readonly root: string;
  /** The workspace the host runs in. */
  readonly workspace: { readonly root: string; readonly cwd: string };
  /** The host's hooks: tap them with `keel.hooks.beforeTool.tapPromise(keel.name, async (ctx) => …)`. */
  readonly hooks: CodePluginHooks;
  /** Adds a tool (registered with the other plugin tools; a taken name is refused with a diagnostic). */
  registerTool<I = unknown>(tool: CodePluginTool<I>): void;
}

/** What a code plugin module exports: `apply` (named, or as the default export's `apply`, or the default export itself). */
export type CodePluginApply = (keel: CodePluginApi) => void | Promise<void>;
