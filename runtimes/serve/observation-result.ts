import type { Observation } from "../../core/index.js";

/** Key under which the result's `_meta` carries the observation (architecture section 4) without its content. */
export const OBSERVATION_META_KEY = "keel/observation";

/** An MCP `CallToolResult`, as `keel mcp serve` answers `tools/call`. */
export interface ServedCallResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  isError?: boolean;
  _meta: Record<string, unknown>;
}

/**
 * Maps an observation to a `CallToolResult`: its text (plugin guidance appended the way `keel call`
 * prints it), `isError` when it is not ok, and the rest of the observation under `_meta["keel/observation"]`.
 */
export function observationResult(obs: Observation, extra?: string): ServedCallResult {
  const guidance = [...obs.messages.beforeTool.map((m) => `[before] ${m}`), ...obs.messages.afterResult.map((m) => `[after] ${m}`)];
  let text = obs.content;
  if (extra) text += `\n\n${extra}`;
  if (guidance.length) text += `\n${guidance.join("\n")}`;
  const { content: _content, ...rest } = obs;
  return {
    content: [{ type: "text", text }],
    ...(obs.ok ? {} : { isError: true }),
    _meta: { [OBSERVATION_META_KEY]: rest },
  };
}
