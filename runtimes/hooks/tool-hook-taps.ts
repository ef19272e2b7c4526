import { existsSync } from "node:fs";
import { join } from "node:path";
import type { BlockDecision, Host, Observation } from "../../core/index.js";
import { claudeToolName, fromClaudeInput, toClaudeInput } from "./claude-tool-input.js";
import type { HookDispatcher, HookRunOutcome } from "./hook-dispatcher.js";
import { shownCommand } from "./shown-command.js";

const PLUGIN_NAME = "claude-hooks";

/** The session's transcript (its events.jsonl), or undefined outside a session. */
export function transcriptPath(host: Host, sessionId: string | undefined): string | undefined {
  if (!sessionId || !/^[A-Za-z0-9._-]{1,100}$/.test(sessionId)) return undefined;
  const file = join(host.workspace.stateDir, "sessions", sessionId, "events.jsonl");
  return existsSync(file) ? file : undefined;
}

/** `Bash` hook `cmd` (file) — how a hook is named to the model and the user (a user-level hook's credentials masked, see `shownCommand`). */
function hookNames(outcomes: HookRunOutcome[]): string {
  return outcomes.map((o) => `\`${shownCommand(o.hook)}\``).join(", ");
}

/**
 * Taps `beforeTool` with the PreToolUse hooks and `afterResult` with the PostToolUse hooks, so
 * they run inside the tool pipeline for every caller (CLI, agent, workflows, sub-agents).
 * PreToolUse: exit 2, `decision: "block"`, `permissionDecision: "deny"` or `continue: false` end
 * the call at phase `hook` (`tool_blocked`, the hook's text as content); `ask` / `allow` take part
 * in the permission decision (never beating a deny); `updatedInput` replaces fields of the input
 * (validated again); `additionalContext` is guidance for the model. PostToolUse (after a tool ran):
 * exit-2 stderr, a block reason and `additionalContext` are appended to what the model sees.
 */
export function tapToolHooks(host: Host, dispatcher: HookDispatcher): void {
  if (dispatcher.has("PreToolUse"))
    host.hooks.beforeTool.tapPromise(PLUGIN_NAME, async (ctx): Promise<BlockDecision | undefined> => {
      const cwd = ctx.run.cwd ?? host.activeDir;
      const claudeName = claudeToolName(ctx.tool.name);
      const outcomes = await dispatcher.dispatch({
        event: "PreToolUse",
        fields: { tool_name: claudeName, tool_input: toClaudeInput(ctx.tool.name, ctx.input), tool_use_id: ctx.callId },
        cwd,
        sessionId: ctx.run.sessionId,
        transcriptPath: transcriptPath(host, ctx.run.sessionId),
        events: ctx.run.events,
        callId: ctx.callId,
        tool: { calledAs: ctx.calledAs, tool: ctx.tool, claudeName, input: ctx.input, cwd, root: host.confinementRoot(cwd) },
        signal: ctx.run.signal,
      });
      if (!outcomes.length) return undefined;
      for (const o of outcomes) if (o.verdict.context) ctx.messages.push(`PreToolUse hook: ${o.verdict.context}`);
      const refusing = outcomes.filter((o) => o.verdict.block !== undefined || o.verdict.stop !== undefined);
      if (refusing.length) {
        const reasons = refusing.map((o) => o.verdict.block ?? o.verdict.stop!).join("\n");
        return {
          block: true,
          message: `A PreToolUse hook blocked this call (nothing was executed): ${reasons}`,
          by: "PreToolUse hook",
          metadata: {
            hook_event: "PreToolUse",
            hook_commands: refusing.map((o) => shownCommand(o.hook)),
            ...(refusing.some((o) => o.verdict.stop !== undefined) ? { hook_stop: true } : {}),
          },
        };
      }
      const updated = outcomes.filter((o) => o.verdict.updatedInput !== undefined).pop();
      if (updated && ctx.input !== null && typeof ctx.input === "object")
        ctx.updatedInput = { ...(ctx.input as object), ...(fromClaudeInput(ctx.tool.name, updated.verdict.updatedInput) as object) };
      const ask = outcomes.filter((o) => o.verdict.permission === "ask");
      const allow = outcomes.filter((o) => o.verdict.permission === "allow");
      const decided = ask.length ? ask : allow;
      if (decided.length)
        ctx.permission = {
          decision: ask.length ? "ask" : "allow",
          by: `PreToolUse hook ${hookNames(decided)}`,
          reason: decided.flatMap((o) => (o.verdict.permissionReason ? [o.verdict.permissionReason] : [])).join("; ") || undefined,
        };
      return undefined;
    });
  if (dispatcher.has("PostToolUse"))
    host.hooks.afterResult.tapPromise(PLUGIN_NAME, async (ctx) => {
      const obs = ctx.observation;
      // Claude Code runs PostToolUse after a tool ran; a call refused before running has no result.
      if (!ctx.tool || (obs.phase !== "done" && obs.phase !== "execute")) return ctx;
      const cwd = ctx.run.cwd ?? host.activeDir;
      const claudeName = claudeToolName(ctx.tool.name);
      const callId = typeof obs.metadata.callId === "string" ? obs.metadata.callId : undefined;
      const outcomes = await dispatcher.dispatch({
        event: "PostToolUse",
        fields: { tool_name: claudeName, tool_input: toClaudeInput(ctx.tool.name, ctx.input), tool_response: toolResponse(obs), tool_use_id: callId ?? "" },
        cwd,
        sessionId: ctx.run.sessionId,
        transcriptPath: transcriptPath(host, ctx.run.sessionId),
        events: ctx.run.events,
        callId,
        tool: { calledAs: ctx.calledAs, tool: ctx.tool, claudeName, input: ctx.input, cwd, root: host.confinementRoot(cwd) },
        signal: ctx.run.signal,
      });
      const notes: string[] = [];
      for (const o of outcomes) {
        if (o.verdict.block) notes.push(`PostToolUse hook feedback: ${o.verdict.block}`);
        if (o.verdict.context) notes.push(`PostToolUse hook context: ${o.verdict.context}`);
        if (o.verdict.stop) notes.push(`PostToolUse hook asked to stop: ${o.verdict.stop}`);
      }
      if (!notes.length) return ctx;
      const stop = outcomes.some((o) => o.verdict.stop !== undefined);
      ctx.observation = {
        ...obs,
        content: `${obs.content}\n\n${notes.join("\n")}`,
        // `continue: false`: an agent ends its turn after this call
        metadata: { ...obs.metadata, hook_feedback: true, ...(stop ? { hook_stop: true } : {}) },
      };
      return ctx;
    });
}

/** A tool's result as a PostToolUse hook's `tool_response`: its structured data (an object) plus `content` and `success`. */
function toolResponse(obs: Observation): Record<string, unknown> {
  const data = obs.data !== null && typeof obs.data === "object" && !Array.isArray(obs.data) ? (obs.data as Record<string, unknown>) : {};
  return { ...data, content: obs.content, success: obs.ok };
}
