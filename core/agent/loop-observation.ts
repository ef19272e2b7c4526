import type { Observation, ObservationCode, ObservationPhase } from "../types.js";

/**
 * An observation the agent loop makes itself, for a call the pipeline did not run (arguments that do
 * not parse, a rejected approval) or whose outcome was lost (a crash): failed, no data, no artifacts.
 */
export function loopObservation(
  tool: string,
  phase: ObservationPhase,
  code: ObservationCode,
  content: string,
  metadata: Record<string, unknown> = {},
): Observation {
  return {
    ok: false,
    tool,
    phase,
    code,
    content,
    data: null,
    metadata,
    messages: { beforeTool: [], afterResult: [] },
    truncated: false,
    artifacts: [],
    durationMs: 0,
  };
}
