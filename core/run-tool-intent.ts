import { errorMessage, HookError } from "./errors.js";
import { storageMessage } from "./state/storage-problem.js";
import { CallLog } from "./call-log.js";
import type { BeforeToolContext } from "./hooks.js";
import type { Host } from "./host.js";
import { normalizeResult, truncateResult } from "./normalize-result.js";
import { hideSecrets } from "./result-secrets.js";
import type { Observation, ObservationMessages, RunContext, ToolDefinition, ToolIntent } from "./types.js";
import { schemaProblems } from "./validation.js";
import { settleAsk } from "./settle-ask.js";
import { schemaMessage, unknownToolMessage } from "./refusal-messages.js";
import { Failure, ToolCall } from "./tool-call.js";
import { fail, observe } from "./end-call.js";
import { forModel, inToolProcess, modelReads } from "./trust-hint.js";

/**
 * The single choke point for every tool call: lookup → visibility → validate → hook →
 * permission → execute → normalize → truncate → observe. Never throws: every failure is an
 * observation with the phase it ended in and a code. Events (see CallLog): `tool_intent`; then
 * `tool_execute` naming every check passed, or the event of the check that refused the call; then
 * `tool_observation` naming the steps after execution. They are written before executing a tool
 * that is not read-only, and committed when the call ends (JsonlEventSink: written within a few
 * ms, one write for the calls ending meanwhile; code that persists state derived from an
 * observation flushes the sink first, as sessions do).
 */
export async function runToolIntent(host: Host, intent: ToolIntent, run: RunContext = {}): Promise<Observation> {
  const started = performance.now();
  const callId = intent.callId ?? host.callIds.next();
  const events = run.events ?? host.events;
  const calledAs = String(intent.tool ?? "");
  let input = intent.input === undefined ? {} : intent.input;
  const log = new CallLog(events, callId, calledAs);
  log.intent(run.origin ?? "api", run.sessionId);

  // lookup
  const resolved = host.registry.resolve(calledAs);
  if (!resolved) {
    events.emit({ type: "tool_lookup", callId, tool: calledAs, found: false });
    return fail(log, started, "lookup", "unknown_tool", worded(run, unknownToolMessage(host, calledAs)), {}, noMessages());
  }
  const tool = resolved.tool;
  const source = resolved.alias?.source ?? tool.source;

  // visibility
  if (run.isVisible && !run.isVisible(calledAs)) {
    events.emit({ type: "tool_visibility", callId, tool: calledAs, visible: false });
    return fail(
      log,
      started,
      "visibility",
      "tool_not_visible",
      `Tool "${calledAs}" exists but is not available in this context. Use one of the tools you were given.`,
      { source, resolvedTool: tool.name },
      noMessages(),
    );
  }

  // validate
  if (tool.validateInput !== false) {
    const compiled = host.validator.forTool(tool);
    if (!compiled.ok) {
      // A schema that cannot be compiled cannot be enforced: fail closed (tools that accept this set validateInput: false).
      events.emit({ type: "tool_validate", callId, tool: calledAs, valid: false, schemaError: compiled.error });
      return fail(
        log,
        started,
        "validate",
        "precondition_failed",
        `Tool ${calledAs} cannot be called: its input schema is invalid (${compiled.error}). Nothing was executed. This is a fault in the tool's definition${tool.source.kind === "plugin" ? ` (\`parameters\` of plugin ${tool.source.id})` : ""}, not in your arguments.`,
        { source, resolvedTool: tool.name },
        noMessages(),
      );
    }
    const problems = schemaProblems(compiled.validate, input);
    if (problems) {
      events.emit({ type: "tool_validate", callId, tool: calledAs, valid: false, problems });
      return fail(log, started, "validate", "schema_invalid", schemaMessage(calledAs, problems, tool), { source, resolvedTool: tool.name }, noMessages());
    }
  }

  // hook (the context is only built when a plugin taps `beforeTool`)
  let beforeTool: string[] = [];
  let decision;
  let hookCtx: BeforeToolContext | undefined;
  if (host.hooks.beforeTool.taps.length !== 0) {
    hookCtx = { host, intent, callId, calledAs, tool, input, run, messages: beforeTool };
    try {
      decision = await host.hooks.beforeTool.promise(hookCtx);
      beforeTool = hookCtx.messages;
    } catch (error) {
      const tap = error instanceof HookError ? error.tap : "unknown";
      events.emit({ type: "hook_error", callId, tool: calledAs, hook: "beforeTool", tap, message: errorMessage(error) });
      return fail(
        log,
        started,
        "hook",
        "tool_blocked",
        `Blocked (failing closed): ${errorMessage(error)}`,
        { source, resolvedTool: tool.name, hook_error: true, hook_tap: tap },
        { beforeTool: hookCtx.messages, afterResult: [] },
      );
    }
  }
  const hookPermission = hookCtx?.permission;
  const messages: ObservationMessages = { beforeTool, afterResult: [] };
  if (decision?.block) {
    events.emit({ type: "tool_hook", callId, tool: calledAs, blocked: true, by: decision.by });
    return fail(
      log,
      started,
      "hook",
      "tool_blocked",
      decision.message,
      { source, resolvedTool: tool.name, ...decision.metadata, plugin_blocked: true, plugin_name: decision.by },
      messages,
    );
  }
  if (hookCtx?.updatedInput !== undefined) {
    // A hook rewrote the input: the tool runs with it only if it is valid input for the tool.
    input = hookCtx.updatedInput;
    const problems = revalidate(host, tool, input);
    if (problems) {
      events.emit({ type: "tool_validate", callId, tool: calledAs, valid: false, problems });
      return fail(
        log,
        started,
        "hook",
        "schema_invalid",
        `A hook replaced the input of ${calledAs} with invalid input (${problems.join("; ")}). Nothing was executed. Fix the hook's updatedInput.`,
        { source, resolvedTool: tool.name, hook_updated_input: true },
        messages,
      );
    }
  }

  // permission
  // The worktree runtime's own tools stay usable so an agent can recover (status, gc, exit).
  if (run.cwd === undefined && host.activeDirError !== undefined && !(tool.source.kind === "runtime" && tool.source.id === "worktree")) {
    events.emit({ type: "tool_permission", callId, tool: calledAs, action: "deny", reason: "active_dir_unusable" });
    return fail(log, started, "permission", "precondition_failed", host.activeDirError, { source, resolvedTool: tool.name }, messages);
  }
  const cwd = run.cwd ?? host.activeDir;
  const root = host.confinementRoot(cwd);
  if (tool.permissionKey === "command") await host.permissions.ready();
  let permission = host.permissions.decide(calledAs, tool, input, cwd, root, resolved.alias && { level: resolved.alias.level ?? "workspace" });
  // A hook may ask for approval of an allowed call; its allow never beats a deny.
  if (hookPermission?.decision === "ask" && permission.action === "allow")
    permission = { action: "ask", reason: `a hook asks for approval (${hookPermission.by}${hookPermission.reason ? `: ${hookPermission.reason}` : ""})` };
  let approvedBy: string = permission.action === "allow" ? "policy" : "";
  if (permission.action === "deny") {
    events.emit({ type: "tool_permission", callId, tool: calledAs, action: "deny", rule: permission.rule });
    return fail(
      log,
      started,
      "permission",
      "permission_denied",
      // A setting that would widen is the user's to change: named to the user's command line, never to a model.
      `Permission denied for ${calledAs}: ${permission.reason}${permission.userHint && !modelReads(run) && !inToolProcess(host.env) ? ` (${permission.userHint})` : ""}. This call is not allowed here; do not retry it — choose another approach.`,
      { source, resolvedTool: tool.name, rule: permission.rule },
      messages,
    );
  }
  if (permission.action === "ask") {
    let settled = settleAsk(host, { callId, calledAs, tool, input, run, cwd, permission, hookPermission, events });
    if (settled instanceof Promise) settled = await settled;
    if ("refused" in settled)
      return fail(
        log,
        started,
        "permission",
        settled.refused.code,
        settled.refused.message,
        { source, resolvedTool: tool.name, ...settled.refused.metadata },
        messages,
      );
    approvedBy = settled.approvedBy;
  }

  // execute
  log.executing({
    resolvedTool: tool.name,
    alias: resolved.alias !== undefined,
    unvalidated: tool.validateInput === false,
    hookMessages: beforeTool.length,
    action: permission.action,
    approvedBy,
    rule: permission.rule,
  });
  // A tool that may have side effects is on disk as started before it runs (a crash mid-call
  // still leaves the record; calls starting together share that write); read-only tools skip this
  // write and flush once when the call ends. A resumed session answers a call with no such record
  // "Not run" only when its tool is keel's own (unrecordedMayHaveRun): an MCP
  // server's `readOnlyHint` is a claim keel cannot check, and such a call gets "Outcome unknown".
  if (!tool.readOnly) {
    try {
      if (events.flushed) await events.flushed();
      else events.flush();
    } catch (error) {
      // A call keel cannot record must not run (a crash would leave no trace of it).
      return fail(
        log,
        started,
        "permission",
        "precondition_failed",
        `${calledAs} was not run: keel could not record it in its event log first (${errorMessage(error)}). Nothing was executed.`,
        { source, resolvedTool: tool.name },
        messages,
      );
    }
  }
  const call = new ToolCall(host, tool, run, callId, calledAs, cwd, root);
  const executed = await call.execute(input);
  if (executed instanceof Failure) {
    const metadata: Record<string, unknown> = { source, resolvedTool: tool.name, ...executed.metadata };
    // An error's text is a result too: the secrets keel knows are hidden from it (see normalizeResult).
    const redactor = host.resultSecrets.redactor();
    const message = worded(run, executed.message);
    const { content, data } = redactor ? hideSecrets(redactor, message, executed.data ?? null) : { content: message, data: executed.data ?? null };
    return observe(host, log, intent, tool, input, run, started, {
      ok: false,
      phase: "execute",
      code: executed.code,
      content,
      data,
      metadata,
      messages,
      truncated: false,
      artifacts: [],
    });
  }
  log.returned();

  // normalize + truncate
  let normalized;
  try {
    normalized = truncateResult(host, tool, callId, normalizeResult(host, tool, callId, executed));
    log.stored(normalized.artifacts.length, normalized.content.length);
  } catch (error) {
    return fail(
      log,
      started,
      "execute",
      "execution_failed",
      `The tool ran but its output could not be stored: ${storageMessage(error)}`,
      { source, resolvedTool: tool.name },
      messages,
    );
  }
  const ok = normalized.ok;
  // `normalizeResult` made this object for this call, with the pipeline's own keys first (as in
  // `{ source, resolvedTool, ...metadata }` of a failed call): their values are set here, so they win.
  const metadata = normalized.metadata;
  metadata.source = source;
  metadata.resolvedTool = tool.name;
  return observe(host, log, intent, tool, input, run, started, {
    ok,
    phase: ok ? "done" : (normalized.phase ?? "execute"),
    code: ok ? "ok" : (normalized.code ?? "execution_failed"),
    content: normalized.content,
    data: normalized.data,
    metadata,
    messages,
    truncated: normalized.truncated,
    artifacts: normalized.artifacts,
  });
}

/** Problems of `input` against the tool's schema, or undefined when it is valid (or the tool takes any input). */
function revalidate(host: Host, tool: ToolDefinition, input: unknown): string[] | undefined {
  if (tool.validateInput === false) return undefined;
  const compiled = host.validator.forTool(tool);
  if (!compiled.ok) return [compiled.error];
  return schemaProblems(compiled.validate, input);
}

/** Keel's own message of a failed call, worded for its reader: a model is told to ask the user to trust, never a way to trust for one run (see forModel). */
function worded(run: RunContext, message: string): string {
  return modelReads(run) ? forModel(message) : message;
}

function noMessages(): ObservationMessages {
  return { beforeTool: [], afterResult: [] };
}
