import { errorMessage } from "../errors.js";
import type { AgentStopContext, GuidanceEntry, PromptContext, UserPromptContext } from "../hooks.js";
import type { ChatMessage } from "../model/model-types.js";
import type { ActiveSession } from "./active-session.js";
import { hookTextsMessage } from "./tool-guidance.js";
import { instructionsSection, loadInstructions, type ContributedInstructions, type Instructions } from "./project-instructions.js";
import type { Host } from "../host.js";
import { readRefusal } from "../tools/read-refusal.js";

/** Default system prompt (the `beforePrompt` waterfall may rewrite it; `agent.systemPrompt` replaces it). */
export function defaultSystemPrompt(cwd: string): string {
  return `You are keel, a coding agent working in ${cwd}. Use the tools to inspect and change files; call tools only when needed and answer concisely when the task is done.`;
}

/**
 * The system prompt before plugins see it: `agent.systemPrompt` (or the default) followed by the
 * project instructions (AGENTS.md and friends, from the user level, plugins' context files and the
 * boundary of `cwd` down to it), read anew each time so edits apply.
 */
export async function systemPromptFor(host: Host, systemPrompt: string | undefined, cwd: string): Promise<{ prompt: string; instructions: Instructions }> {
  const base = systemPrompt ?? defaultSystemPrompt(cwd);
  const contributed: ContributedInstructions[] = (host.service("plugins")?.handOffs() ?? [])
    .filter((h) => h.contextFiles?.length)
    .map((h) => ({
      root: h.root,
      files: h.contextFiles!,
      level: h.userLevel ? "user" : "workspace",
      source: `${h.kind === "gemini-extension" ? "Gemini CLI extension" : "plugin"} ${h.plugin}`,
      shownFrom: h.userLevel ? host.workspace.keelHome : host.workspace.root,
    }));
  const root = host.confinementRoot(cwd);
  const refuse = (path: string) => readRefusal(host, root, path);
  const redactor = host.resultSecrets.redactor();
  const instructions = await loadInstructions({
    userDir: host.workspace.keelHome,
    root,
    cwd,
    contributed,
    refuse,
    ...(redactor ? { redact: redactor.text } : {}),
  });
  const section = instructionsSection(instructions.files);
  return { prompt: section ? `${base}\n\n${section}` : base, instructions };
}

/** systemPromptFor a session (a sub-agent type's prompt in place of the default or configured one); records an `instructions` event when instruction files were found (or skipped). */
async function baseSystemPrompt(s: ActiveSession): Promise<string> {
  const { prompt, instructions: found } = await systemPromptFor(s.host, s.meta.agentType?.prompt || s.settings.systemPrompt, s.cwd);
  if (found.files.length || found.notes.length)
    s.emit("instructions", {
      files: found.files.map((f) => ({
        path: f.shown,
        level: f.level,
        tokens: f.tokens,
        importedFrom: f.importedFrom,
        source: f.source,
        truncated: f.truncated || undefined,
      })),
      notes: found.notes.length ? found.notes : undefined,
    });
  return prompt;
}

/**
 * Fires `beforePrompt` (every run and resume) and, on resume, `onResume`. Sets the system
 * prompt (see baseSystemPrompt) and adds the plugin texts as user messages (`Plugin before-prompt hooks:`,
 * `Plugin resume hooks:`) — call it before adding the user prompt. With `afterPending` (an approval
 * continuing a turn whose tool calls are unanswered) the texts wait until the calls are answered.
 * Failures become events.
 */
export async function firePromptHooks(s: ActiveSession, resume: boolean, afterPending = false): Promise<void> {
  const add = (message: ChatMessage) => (afterPending ? s.afterPending.push(message) : s.addMessage(message));
  const host = s.host;
  const base = await baseSystemPrompt(s);
  const ctx: PromptContext = { host, sessionId: s.id, system: base, guidance: [], resume };
  let before: GuidanceEntry[] = [];
  try {
    const out = await host.hooks.beforePrompt.promise(ctx);
    before = out?.guidance ?? ctx.guidance;
    ctx.system = out?.system ?? ctx.system;
    s.emit("hook", { hook: "beforePrompt", resume, texts: before });
  } catch (error) {
    s.emit("hook_error", { hook: "beforePrompt", message: errorMessage(error) });
  }
  s.setSystemPrompt(ctx.system);
  const beforeText = hookTextsMessage("Plugin before-prompt hooks:", before);
  if (beforeText) add({ role: "user", kind: "hooks", content: beforeText });
  if (!resume) return;
  const rctx: PromptContext = { host, sessionId: s.id, system: ctx.system, guidance: [], resume: true };
  let resumed: GuidanceEntry[] = [];
  try {
    const out = await host.hooks.onResume.promise(rctx);
    resumed = out?.guidance ?? rctx.guidance;
    s.emit("hook", { hook: "onResume", texts: resumed });
  } catch (error) {
    s.emit("hook_error", { hook: "onResume", message: errorMessage(error) });
  }
  const resumeText = hookTextsMessage("Plugin resume hooks:", resumed);
  if (resumeText) add({ role: "user", kind: "hooks", content: resumeText });
}

/**
 * Fires `userPromptSubmit` for a prompt about to be added: texts taps add become one user message
 * before the prompt. Returns why the prompt was refused (a tap blocked it, or failed: failing
 * closed), or undefined when it may go to the model.
 */
export async function fireUserPromptSubmit(s: ActiveSession, prompt: string): Promise<string | undefined> {
  const hook = s.host.hooks.userPromptSubmit;
  if (hook.taps.length === 0) return undefined;
  const ctx: UserPromptContext = { host: s.host, sessionId: s.id, prompt, cwd: s.cwd, subagent: s.meta.depth > 0, events: s.events, context: [] };
  try {
    await hook.promise(ctx);
  } catch (error) {
    s.emit("hook_error", { hook: "userPromptSubmit", message: errorMessage(error) });
    return `The prompt was not sent: a userPromptSubmit hook failed (${errorMessage(error)}), and keel fails closed. Fix the hook, then retry.`;
  }
  if (ctx.blocked) return `A UserPromptSubmit hook blocked the prompt; the model did not see it. ${ctx.blocked.by}: ${ctx.blocked.message}`;
  const text = hookTextsMessage("UserPromptSubmit hooks:", ctx.context);
  if (text) s.addMessage({ role: "user", kind: "hooks", content: text });
  return undefined;
}

/**
 * Fires `agentStop` when the model answered without tool calls: the text a tap returns (a Stop /
 * SubagentStop hook's block reason) is what the agent continues with, or undefined to stop.
 * `stopHookActive`: the turn already continued because of a stop hook. Failures become events.
 */
export async function fireAgentStop(s: ActiveSession, stopHookActive: boolean): Promise<string | undefined> {
  const hook = s.host.hooks.agentStop;
  if (hook.taps.length === 0) return undefined;
  const ctx: AgentStopContext = {
    host: s.host,
    sessionId: s.id,
    subagent: s.meta.depth > 0,
    ...(s.meta.agentType ? { agentType: s.meta.agentType.name } : {}),
    stopHookActive,
    cwd: s.cwd,
    events: s.events,
  };
  try {
    await hook.promise(ctx);
  } catch (error) {
    s.emit("hook_error", { hook: "agentStop", message: errorMessage(error) });
    return undefined;
  }
  return ctx.continueWith ? `${ctx.continueWith.by}: ${ctx.continueWith.reason}` : undefined;
}

/** Fires `notification` (a notification: failures become events). */
export async function notifyUser(s: ActiveSession, message: string): Promise<void> {
  const hook = s.host.hooks.notification;
  if (hook.taps.length === 0) return;
  await hook
    .promise({ host: s.host, sessionId: s.id, cwd: s.cwd, events: s.events, message, kind: "permission_prompt" })
    .catch((error: unknown) => s.emit("hook_error", { hook: "notification", message: errorMessage(error) }));
}

/** Fires `beforeCompact` before the history is compacted (a notification: failures become events). */
export async function fireBeforeCompact(s: ActiveSession, trigger: "auto" | "manual" = "auto"): Promise<void> {
  const hook = s.host.hooks.beforeCompact;
  if (hook.taps.length === 0) return;
  await hook
    .promise({ host: s.host, sessionId: s.id, cwd: s.cwd, events: s.events, trigger })
    .catch((error: unknown) => s.emit("hook_error", { hook: "beforeCompact", message: errorMessage(error) }));
}

/** Fires `afterTurn` once at the end of a user turn; its notes are recorded as an event only. */
export async function fireAfterTurn(s: ActiveSession, reason: string): Promise<void> {
  const ctx = { host: s.host, sessionId: s.id, reason, notes: [] as GuidanceEntry[] };
  try {
    await s.host.hooks.afterTurn.promise(ctx);
    s.emit("after_turn", { turn: s.state.turn, reason, notes: ctx.notes });
  } catch (error) {
    s.emit("hook_error", { hook: "afterTurn", message: errorMessage(error) });
  }
}
