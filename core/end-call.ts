import { errorMessage, HookError } from "./errors.js";
import type { CallLog } from "./call-log.js";
import type { Host } from "./host.js";
import type { Observation, ObservationCode, ObservationMessages, ObservationPhase, RunContext, ToolDefinition, ToolIntent } from "./types.js";

/** An observation before `tool` and `durationMs` are filled in. */
export type Draft = Omit<Observation, "durationMs" | "tool">;

/** Ends a call that failed before or around execution. */
export function fail(
  log: CallLog,
  started: number,
  phase: ObservationPhase,
  code: ObservationCode,
  content: string,
  metadata: Record<string, unknown>,
  messages: ObservationMessages,
): Observation {
  return finish(log, started, { ok: false, phase, code, content, data: null, metadata, messages, truncated: false, artifacts: [] });
}

/** Finishes the observation and runs `afterResult` taps, if any (only then asynchronously). */
export function observe(
  host: Host,
  log: CallLog,
  intent: ToolIntent,
  tool: ToolDefinition,
  input: unknown,
  run: RunContext,
  started: number,
  obs: Draft,
): Observation | Promise<Observation> {
  const draft = finish(log, started, obs);
  // `isUsed()` is always true here (every hook carries the error-naming interceptor): count taps.
  return host.hooks.afterResult.taps.length === 0 ? draft : afterResult(host, log, intent, tool, input, run, draft);
}

async function afterResult(
  host: Host,
  log: CallLog,
  intent: ToolIntent,
  tool: ToolDefinition,
  input: unknown,
  run: RunContext,
  draft: Observation,
): Promise<Observation> {
  try {
    const ctx = await host.hooks.afterResult.promise({ host, intent, calledAs: draft.tool, tool, input, run, observation: draft });
    return ctx.observation;
  } catch (error) {
    const tap = error instanceof HookError ? error.tap : "unknown";
    log.events.emit({ type: "hook_error", callId: log.callId, tool: draft.tool, hook: "afterResult", tap, message: errorMessage(error) });
    log.events.flush();
    return {
      ...draft,
      ok: false,
      phase: "execute",
      code: "execution_failed",
      data: null,
      content: `The tool ran, but its result was withheld (failing closed): ${errorMessage(error)}`,
      metadata: { ...draft.metadata, hook_error: true, hook_tap: tap },
    };
  }
}

/** Completes the observation (same key order as `{ ...draft, tool, durationMs }`), logs it and commits the call's events. */
function finish(log: CallLog, started: number, d: Draft): Observation {
  // Every draft is a fresh literal made for this call: completed in place.
  const obs = d as Observation;
  obs.tool = log.tool;
  obs.durationMs = round(performance.now() - started);
  log.observation(obs);
  // Written soon, in one write with the other calls that end meanwhile (see JsonlEventSink.commit).
  if (log.events.commit) log.events.commit();
  else log.events.flush();
  obs.metadata.callId = log.callId;
  return obs;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
