import type { Host } from "../../core/index.js";
import type { HookDispatcher, HookRunOutcome } from "./hook-dispatcher.js";
import { shownCommand } from "./shown-command.js";
import { transcriptPath } from "./tool-hook-taps.js";

const PLUGIN_NAME = "claude-hooks";

/** SessionEnd's `reason` (and what its matcher is matched against): the end of a keel turn is none of Claude Code's named reasons. */
const SESSION_END_REASON = "other";

/** The `agent_type` of a sub-agent started without a type (`delegate_agent` without `agent`): Claude Code's general sub-agent. */
const DEFAULT_AGENT_TYPE = "general-purpose";

/** `UserPromptSubmit hook \`cmd\`` — how a hook is named in texts for the model (a user-level hook's credentials masked, see `shownCommand`). */
function named(event: string, o: HookRunOutcome): string {
  return `${event} hook \`${shownCommand(o.hook)}\``;
}

/**
 * Taps the agent's hooks with Claude Code's session events (sub-agents fire only SubagentStop and
 * tool events, as in Claude Code): UserPromptSubmit (stdout or
 * `additionalContext` reaches the model before the prompt; exit 2 or `decision: "block"` refuses
 * the prompt), SessionStart (`source`: `startup` or `resume`; stdout or `additionalContext` reaches the
 * model), Stop / SubagentStop (exit 2 or `decision: "block"` sends the agent on with the reason;
 * `stop_hook_active` tells the hook it already did), SessionEnd, PreCompact (`trigger: "auto"`) and
 * Notification (`notification_type: "permission_prompt"`: an approval is asked or a session paused
 * for one) as notifications. Matchers apply where Claude Code documents them, with the tool events'
 * semantics (HookDispatcher): SessionStart on `source`, SessionEnd on `reason`, PreCompact on
 * `trigger`, Notification on `notification_type`, SubagentStop on `agent_type`; UserPromptSubmit and
 * Stop take none (a matcher there is ignored).
 */
export function tapAgentHooks(host: Host, dispatcher: HookDispatcher): void {
  if (dispatcher.has("UserPromptSubmit"))
    host.hooks.userPromptSubmit.tapPromise(PLUGIN_NAME, async (ctx) => {
      // As in Claude Code, a sub-agent's task is not a user prompt.
      if (ctx.subagent) return;
      const outcomes = await dispatcher.dispatch({
        event: "UserPromptSubmit",
        fields: { prompt: ctx.prompt },
        cwd: ctx.cwd,
        sessionId: ctx.sessionId,
        events: ctx.events,
        transcriptPath: transcriptPath(host, ctx.sessionId),
        plainStdoutIsContext: true,
      });
      const refusing = outcomes.find((o) => o.verdict.block !== undefined || o.verdict.stop !== undefined);
      if (refusing) {
        ctx.blocked = { by: named("UserPromptSubmit", refusing), message: refusing.verdict.block ?? refusing.verdict.stop! };
        return;
      }
      for (const o of outcomes) if (o.verdict.context) ctx.context.push({ source: named("UserPromptSubmit", o), text: o.verdict.context });
    });
  if (dispatcher.has("SessionStart"))
    host.hooks.sessionStart.tapPromise(PLUGIN_NAME, async (ctx) => {
      if (ctx.subagent) return;
      const outcomes = await dispatcher.dispatch({
        event: "SessionStart",
        fields: { source: ctx.source ?? "startup" },
        matchOn: ctx.source ?? "startup",
        cwd: ctx.cwd ?? host.activeDir,
        sessionId: ctx.sessionId,
        events: ctx.events,
        transcriptPath: transcriptPath(host, ctx.sessionId),
        plainStdoutIsContext: true,
      });
      for (const o of outcomes) if (o.verdict.context) ctx.context?.push({ source: named("SessionStart", o), text: o.verdict.context });
    });
  if (dispatcher.has("SessionEnd"))
    host.hooks.sessionEnd.tapPromise(PLUGIN_NAME, async (ctx) => {
      if (ctx.subagent) return;
      await dispatcher.dispatch({
        event: "SessionEnd",
        // a keel turn ends for none of Claude Code's named reasons (`clear`, `logout`, `prompt_input_exit`, …)
        fields: { reason: SESSION_END_REASON },
        matchOn: SESSION_END_REASON,
        cwd: ctx.cwd ?? host.activeDir,
        sessionId: ctx.sessionId,
        events: ctx.events,
        transcriptPath: transcriptPath(host, ctx.sessionId),
      });
    });
  if (dispatcher.has("PreCompact"))
    host.hooks.beforeCompact.tapPromise(PLUGIN_NAME, async (ctx) => {
      await dispatcher.dispatch({
        event: "PreCompact",
        fields: { trigger: ctx.trigger, custom_instructions: "" },
        matchOn: ctx.trigger,
        cwd: ctx.cwd,
        sessionId: ctx.sessionId,
        events: ctx.events,
        transcriptPath: transcriptPath(host, ctx.sessionId),
      });
    });
  if (dispatcher.has("Notification"))
    host.hooks.notification.tapPromise(PLUGIN_NAME, async (ctx) => {
      await dispatcher.dispatch({
        event: "Notification",
        fields: { message: ctx.message, notification_type: ctx.kind },
        matchOn: ctx.kind,
        cwd: ctx.cwd,
        sessionId: ctx.sessionId,
        events: ctx.events,
        transcriptPath: transcriptPath(host, ctx.sessionId),
      });
    });
  if (dispatcher.has("Stop") || dispatcher.has("SubagentStop"))
    host.hooks.agentStop.tapPromise(PLUGIN_NAME, async (ctx) => {
      const event = ctx.subagent ? "SubagentStop" : "Stop";
      // SubagentStop is matched against the agent type, as in Claude Code; Stop takes no matcher
      const agentType = ctx.subagent ? (ctx.agentType ?? DEFAULT_AGENT_TYPE) : undefined;
      const outcomes = await dispatcher.dispatch({
        event,
        fields: { stop_hook_active: ctx.stopHookActive, ...(agentType !== undefined ? { agent_type: agentType } : {}) },
        ...(agentType !== undefined ? { matchOn: agentType } : {}),
        cwd: ctx.cwd,
        sessionId: ctx.sessionId,
        events: ctx.events,
        transcriptPath: transcriptPath(host, ctx.sessionId),
      });
      // `continue: false` wins: the agent stops whatever another hook asks.
      if (outcomes.some((o) => o.verdict.stop !== undefined)) return;
      const goOn = outcomes.filter((o) => o.verdict.block !== undefined);
      if (goOn.length) ctx.continueWith = { by: named(event, goOn[0]!), reason: goOn.map((o) => o.verdict.block).join("\n") };
    });
}
