import type { Host, KeelPlugin } from "../host.js";
import type { ToolDefinition } from "../types.js";
import { readFileTool } from "./read-file.js";

const PLUGIN_NAME = "builtin-tools";

/** The built-in tools, each a plain ToolDefinition. */
export function builtinToolDefinitions(): ToolDefinition[] {
  return [readFileTool()];
}

/** Registers the built-in tools first (stage -100) so plugins can alias them. */
export function builtinTools(): KeelPlugin {
  return {
    name: PLUGIN_NAME,
    apply(host: Host) {
      host.hooks.registerTools.tapPromise({ name: PLUGIN_NAME, stage: -100 }, async () => {
        for (const tool of builtinToolDefinitions()) host.registry.register(tool);
      });
    },
  };
}
