import { randomUUID } from "node:crypto";
import { errorMessage, HookError, ToolError } from "./errors.js";
import type { BeforeToolContext } from "./hooks.js";
import type { Host } from "./host.js";
import { normalizeResult, truncateResult } from "./normalize-result.js";
import type {
  EventSink,
  Observation,
  ObservationCode,
  ObservationPhase,
  RunContext,
  ToolContext,
  ToolDefinition,
  ToolIntent,
} from "./types.js";
import { describeSchemaErrors } from "./validation.js";

/** Default execution timeout when a tool sets none. */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/** A fresh call id: time-ordered and unique enough for artifact names. */
export function newCallId(): string {
  return `call_${Date.now().toString(36)}${randomUUID().slice(0, 8)}`;
}

/**
 * The single choke point for every tool call: lookup → visibility → validate → hook →
 * permission → execute → normalize → truncate → observe. Never throws: every failure is an
 * observation with the phase it ended in and a code. Each phase appends an event; events
 * are flushed before executing a tool that is not read-only, and always before returning.
 */
export async function runToolIntent(host: Host, intent: ToolIntent, run: RunContext = {}): Promise<Observation> {
  const started = performance.now();
  const callId = intent.callId ?? newCallId();
  const events = run.events ?? host.events;
  const calledAs = String(intent.tool ?? "");
  const input = intent.input === undefined ? {} : intent.input;
  const base = { callId, tool: calledAs };
  events.emit({ type: "tool_intent", ...base, origin: run.origin ?? "api", sessionId: run.sessionId });
  const end = (obs: Omit<Observation, "durationMs" | "tool">) =>
    finish(host, events, { ...obs, tool: calledAs, durationMs: round(performance.now() - started) }, callId);
  const fail = (phase: ObservationPhase, code: ObservationCode, content: string, metadata: Record<string, unknown> = {}, messages = noMessages()) =>
    end({ ok: false, phase, code, content, data: null, metadata, messages, truncated: false, artifacts: [] });

  // lookup
  const resolved = host.registry.resolve(calledAs);
  if (!resolved) {
    events.emit({ type: "tool_lookup", ...base, found: false });
    return fail("lookup", "unknown_tool", unknownToolMessage(host, calledAs));
  }
  const tool = resolved.tool;
  const meta: Record<string, unknown> = { source: resolved.alias?.source ?? tool.source, resolvedTool: tool.name };
  events.emit({ type: "tool_lookup", ...base, found: true, resolvedTool: tool.name, alias: resolved.alias ? true : undefined });

  // visibility
  if (run.isVisible && !run.isVisible(calledAs)) {
    events.emit({ type: "tool_visibility", ...base, visible: false });
    return fail("visibility", "tool_not_visible", `Tool "${calledAs}" exists but is not available in this context. Use one of the tools you were given.`, meta);
  }
  events.emit({ type: "tool_visibility", ...base, visible: true });

  // validate
  if (tool.validateInput !== false) {
    const compiled = host.validator.forTool(tool);
    if (compiled.ok && !compiled.validate(input)) {
      const problems = describeSchemaErrors(compiled.validate.errors, input);
      events.emit({ type: "tool_validate", ...base, valid: false, problems });
      return fail("validate", "schema_invalid", schemaMessage(calledAs, problems, tool), meta);
    }
    events.emit({ type: "tool_validate", ...base, valid: true, skipped: compiled.ok ? undefined : true });
  } else {
    events.emit({ type: "tool_validate", ...base, valid: true, skipped: true });
  }

  // hook
  const hookCtx: BeforeToolContext = { host, intent, calledAs, tool, input, run, messages: [] };
  let decision;
  try {
    decision = host.hooks.beforeTool.taps.length === 0 ? undefined : await host.hooks.beforeTool.promise(hookCtx);
  } catch (error) {
    const tap = error instanceof HookError ? error.tap : "unknown";
    events.emit({ type: "hook_error", ...base, hook: "beforeTool", tap, message: errorMessage(error) });
    return fail("hook", "tool_blocked", `Blocked (failing closed): ${errorMessage(error)}`, { ...meta, hook_error: true, hook_tap: tap }, { beforeTool: hookCtx.messages, afterResult: [] });
  }
  const messages = { beforeTool: hookCtx.messages, afterResult: [] as string[] };
  if (decision?.block) {
    events.emit({ type: "tool_hook", ...base, blocked: true, by: decision.by });
    return fail("hook", "tool_blocked", decision.message, { ...meta, ...decision.metadata, plugin_blocked: true, plugin_name: decision.by }, messages);
  }
  events.emit({ type: "tool_hook", ...base, blocked: false, messages: messages.beforeTool.length || undefined });

  // permission
  const cwd = run.cwd ?? host.activeDir;
  const root = host.confinementRoot(cwd);
  const permission = host.permissions.decide(calledAs, tool, input, cwd, root);
  let approvedBy: string = permission.action === "allow" ? "policy" : "";
  if (permission.action === "deny") {
    events.emit({ type: "tool_permission", ...base, action: "deny", rule: permission.rule });
    return fail("permission", "permission_denied", `Permission denied for ${calledAs}: ${permission.reason}. This call is not allowed here; do not retry it — choose another approach.`, { ...meta, rule: permission.rule }, messages);
  }
  if (permission.action === "ask") {
    if (run.sessionAllow?.has(tool.name)) approvedBy = "session";
    else if (run.yes ?? host.options.yes) approvedBy = "--yes";
    else {
      const approver = run.approver ?? host.options.approver;
      if (!approver) {
        events.emit({ type: "tool_permission", ...base, action: "ask", outcome: "approval_required", rule: permission.rule });
        return fail("permission", "approval_required", `Approval required to run ${calledAs} (${permission.reason}). Nothing was executed. Re-run with --yes, answer the prompt on a terminal, or add an allow rule under "permissions" in keel.config.json.`, { ...meta, rule: permission.rule, risk: tool.risk }, messages);
      }
      const answer = await approver
        .approve({ tool: calledAs, resolvedTool: tool.name, input, risk: tool.risk, rule: permission.rule, reason: permission.reason }, run.signal ?? AbortSignal.timeout(2 ** 31 - 1))
        .catch(() => "no" as const);
      if (answer === "no") {
        events.emit({ type: "tool_permission", ...base, action: "ask", outcome: "user_denied" });
        return fail("permission", "user_denied", `The user declined to run ${calledAs}. Nothing was executed. Do not retry the same call; ask the user or choose another approach.`, meta, messages);
      }
      if (answer === "always") run.sessionAllow?.add(tool.name);
      approvedBy = "user";
    }
  }
  events.emit({ type: "tool_permission", ...base, action: permission.action, approvedBy, rule: permission.rule });

  // execute
  events.emit({ type: "tool_execute", ...base, resolvedTool: tool.name });
  // A tool that may have side effects is on disk as started before it runs (a crash mid-call
  // still leaves the record); read-only tools skip this write and flush once when the call ends.
  if (!tool.readOnly) events.flush();
  const executed = await execute(host, tool, input, run, callId, calledAs, cwd, root);
  if (!executed.ok) {
    events.emit({ type: "tool_result", ...base, ok: false, code: executed.code });
    return observe(host, events, intent, tool, input, run, end, {
      ok: false, phase: "execute", code: executed.code, content: executed.message, data: executed.data ?? null,
      metadata: { ...meta, ...executed.metadata }, messages, truncated: false, artifacts: [],
    });
  }
  events.emit({ type: "tool_result", ...base, ok: executed.result.ok !== false });

  // normalize + truncate
  let normalized;
  try {
    normalized = normalizeResult(host, tool, callId, executed.result);
    events.emit({ type: "tool_normalize", ...base, artifacts: normalized.artifacts.length || undefined });
    normalized = truncateResult(host, tool, callId, normalized);
    events.emit({ type: "tool_truncate", ...base, truncated: normalized.truncated, chars: normalized.content.length });
  } catch (error) {
    return fail("execute", "execution_failed", `The tool ran but its output could not be stored: ${errorMessage(error)}`, meta, messages);
  }
  const ok = normalized.ok;
  return observe(host, events, intent, tool, input, run, end, {
    ok, phase: ok ? "done" : "execute", code: ok ? "ok" : normalized.code ?? "execution_failed",
    content: normalized.content, data: normalized.data, metadata: { ...normalized.metadata, ...meta },
    messages, truncated: normalized.truncated, artifacts: normalized.artifacts,
  });
}

type Executed =
  | { ok: true; result: Awaited<ReturnType<ToolDefinition["execute"]>> }
  | { ok: false; code: ObservationCode; message: string; data?: unknown; metadata?: Record<string, unknown> };

async function execute(host: Host, tool: ToolDefinition, input: unknown, run: RunContext, callId: string, calledAs: string, cwd: string, root: string): Promise<Executed> {
  const timeoutMs = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const aborted = () => (run.signal?.aborted ? { ok: false as const, code: "cancelled" as const, message: `${calledAs} was cancelled.` }
    : { ok: false as const, code: "timeout" as const, message: `${calledAs} timed out after ${timeoutMs} ms. Try a smaller request or a longer timeout.` });
  if (run.signal?.aborted) return aborted();
  // The call's signal is created only when the tool reads `ctx.signal` (AbortController is a
  // measurable share of a fast call); the caller's signal and the timeout abort it, or mark it
  // to be born aborted. The timer is cleared when the call ends.
  let controller: AbortController | undefined;
  let stopped: { reason: unknown } | undefined;
  const signalOf = () => {
    if (!controller) {
      controller = new AbortController();
      if (stopped) controller.abort(stopped.reason);
    }
    return controller.signal;
  };
  let settle: (e: Executed) => void = () => undefined;
  const abortPromise = new Promise<Executed>((resolve) => (settle = resolve));
  const stop = (reason: unknown) => {
    stopped ??= { reason };
    if (controller && !controller.signal.aborted) controller.abort(reason);
    settle(aborted());
  };
  const timer = timeoutMs > 0 ? setTimeout(() => stop(new DOMException(`${calledAs} timed out after ${timeoutMs} ms`, "TimeoutError")), timeoutMs) : undefined;
  const onCallerAbort = () => stop(run.signal?.reason);
  run.signal?.addEventListener("abort", onCallerAbort, { once: true });
  const ctx: ToolContext = {
    get signal() {
      return signalOf();
    },
    host, cwd, root, callId, sessionId: run.sessionId, calledAs, fileBaselines: run.fileBaselines ?? host.fileBaselines, run,
  };
  try {
    return await Promise.race([tool.execute(input, ctx).then((r) => ({ ok: true as const, result: r })), abortPromise]);
  } catch (error) {
    if (stopped) return aborted();
    if (error instanceof ToolError) return { ok: false, code: error.code, message: error.message, data: error.data, metadata: error.metadata };
    return { ok: false, code: "execution_failed", message: `${calledAs} failed: ${errorMessage(error)}` };
  } finally {
    if (timer) clearTimeout(timer);
    run.signal?.removeEventListener("abort", onCallerAbort);
  }
}

async function observe(
  host: Host, events: EventSink, intent: ToolIntent, tool: ToolDefinition, input: unknown, run: RunContext,
  end: (o: Omit<Observation, "durationMs" | "tool">) => Observation, obs: Omit<Observation, "durationMs" | "tool">,
): Promise<Observation> {
  const draft = end(obs);
  // `isUsed()` is always true here (every hook carries the error-naming interceptor): count taps.
  if (host.hooks.afterResult.taps.length === 0) return draft;
  try {
    const ctx = await host.hooks.afterResult.promise({ host, intent, calledAs: draft.tool, tool, input, run, observation: draft });
    return ctx.observation;
  } catch (error) {
    const tap = error instanceof HookError ? error.tap : "unknown";
    events.emit({ type: "hook_error", callId: draft.metadata.callId, tool: draft.tool, hook: "afterResult", tap, message: errorMessage(error) });
    events.flush();
    return { ...draft, ok: false, phase: "execute", code: "execution_failed", data: null, content: `The tool ran, but its result was withheld (failing closed): ${errorMessage(error)}`, metadata: { ...draft.metadata, hook_error: true, hook_tap: tap } };
  }
}

function finish(host: Host, events: EventSink, obs: Observation, callId: string): Observation {
  events.emit({ type: "tool_observation", callId, tool: obs.tool, ok: obs.ok, phase: obs.phase, code: obs.code, durationMs: obs.durationMs, truncated: obs.truncated || undefined });
  events.flush();
  obs.metadata.callId = callId;
  return obs;
}

function noMessages() {
  return { beforeTool: [] as string[], afterResult: [] as string[] };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function schemaMessage(name: string, problems: string[], tool: ToolDefinition): string {
  let schema = JSON.stringify(tool.inputSchema);
  if (schema.length > 1500) schema = schema.slice(0, 1500) + "…";
  return `Invalid input for ${name}: ${problems.join("; ")}. Fix the arguments and call again. Expected input schema: ${schema}`;
}

function unknownToolMessage(host: Host, name: string): string {
  const names = host.registry.listing().map((t) => t.name);
  const lower = name.toLowerCase();
  const close = names.filter((n) => n.toLowerCase().includes(lower) || lower.includes(n.toLowerCase())).slice(0, 5);
  const hint = close.length ? ` Did you mean: ${close.join(", ")}?` : ` Run \`keel tools\` to list the ${names.length} available tools.`;
  return `Unknown tool "${name}".${hint}`;
}
