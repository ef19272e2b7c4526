import type { Host, KeelPlugin } from "../host.js";
import type { ToolDefinition } from "../types.js";
import { bashTool } from "./bash.js";
import { editFileTool } from "./edit-file.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { listDirTool } from "./list-dir.js";
import { readFileTool } from "./read-file.js";
import { writeFileTool } from "./write-file.js";

const PLUGIN_NAME = "builtin-tools";

/** The built-in tools, each a plain ToolDefinition. */
export function builtinToolDefinitions(): ToolDefinition[] {
  return [readFileTool(), writeFileTool(), editFileTool(), listDirTool(), globTool(), grepTool(), bashTool()];
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
