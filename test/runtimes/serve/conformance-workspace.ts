import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { makeWorkspace } from "../../helpers/temp-workspace.js";
import { upstreamManifest } from "./serve-test-kit.js";

/** The input schema the `json-schema-2020-12` scenario expects to get back unchanged. */
export const JSON_SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
  properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
  additionalProperties: false,
};

/**
 * A workspace whose ordinary keel extensions provide what the conformance server scenarios call:
 * plugin virtual tools (`test_simple_text`, `json_schema_2020_12_tool`, `test_error_handling`, which
 * a deny rule refuses, so it always ends in an error result), a plugin alias of an upstream MCP tool
 * that reports progress (`test_tool_with_progress`), a local manifest resource
 * (`test://static-text`), a prompt command (`test_simple_prompt`) and a workflow with a prompt
 * (`test_prompt_with_arguments`).
 */
export function conformanceWorkspace(): TempWorkspace {
  const ws = makeWorkspace({
    "plugins/conformance/plugin.json": {
      name: "conformance",
      virtual_tools: [
        { name: "test_simple_text", description: "Returns simple text", response_template: "This is a simple text response for testing." },
        { name: "json_schema_2020_12_tool", description: "Tool with JSON Schema 2020-12 features", response_template: "ok", parameters: JSON_SCHEMA_2020_12 },
        { name: "test_error_handling", description: "Always fails (a deny rule refuses it)", response_template: "never shown" },
      ],
      tool_aliases: [{ name: "test_tool_with_progress", base_tool: "mcp__up__test_tool_with_progress", description: "Reports progress 0, 50, 100" }],
    },
    "keel.config.json": { permissions: { deny: ["test_error_handling"] } },
    ".claude/commands/test_simple_prompt.md": "---\ndescription: A simple prompt\n---\nThis is a simple prompt for testing.\n",
    ".claw-workflows.json": {
      workflows: [
        {
          name: "test_prompt_with_arguments",
          description: "A prompt with arguments",
          parameters: {
            type: "object",
            properties: { arg1: { type: "string", description: "First test argument" }, arg2: { type: "string", description: "Second test argument" } },
            required: ["arg1", "arg2"],
          },
          prompt: "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'",
          steps: ["Nothing to run: the prompt is the point."],
        },
      ],
    },
  });
  ws.write(
    ".mcp.json",
    upstreamManifest(ws, {
      resources: [
        {
          name: "static-text",
          uri: "test://static-text",
          description: "A static text resource",
          mimeType: "text/plain",
          text: "This is the content of the static text resource.",
        },
      ],
    }),
  );
  return ws;
}
