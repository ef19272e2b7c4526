import type { AgentOutcome, AgentRunOptions, AgentRuntime } from "../../agent/agent-runtime.js";
import { formatDiagnostic } from "../../diagnostics.js";
import { UsageError } from "../../errors.js";
import { requireModelSpec } from "../../model/model-spec.js";
import type { ExpandedPrompt, WorktreeInfo } from "../../services.js";
import type { Host } from "../../host.js";
import type { CliContext } from "../cli-context.js";
import { ActivityRenderer } from "../activity-renderer.js";
import { ThinkingIndicator } from "../thinking-indicator.js";
import { useColor } from "../palette.js";
import { terminalText } from "../terminal-text.js";
import { ttyApprover } from "../tty-approver.js";
import { waitingApproval } from "../waiting-approval.js";

/** Options of `keel run`. */
export interface RunCommandOptions {
  model?: string;
  resume?: string;
  session?: string;
  maxSteps?: number;
  worktree?: boolean;
}

/** `keel run "PROMPT"`: starts or resumes a session, streaming the answer to stdout. */
export async function runCommand(ctx: CliContext, prompt: string | undefined, opts: RunCommandOptions): Promise<void> {
  if (!prompt?.trim() && !opts.resume) throw new UsageError('Give a prompt: keel run "what to do" (or continue a session with --resume ID).');
  if (opts.resume && opts.session && opts.session !== opts.resume)
    throw new UsageError(`--session names a new session and --resume continues one; to continue ${opts.resume}, drop --session ${opts.session}.`);
  if (opts.resume && opts.worktree) throw new UsageError("--worktree applies to new sessions; a resumed session keeps its own directory.");
  await withAgent(ctx, async (runtime, base, endLine) => {
    const host = runtime.host;
    if (!opts.resume) requireModelSpec(host.config, opts.model, host.env, host.workspace.root);
    let worktree: WorktreeInfo | undefined;
    if (opts.worktree) {
      const service = host.service("worktrees");
      if (!service) throw new UsageError("--worktree needs the worktree runtime, which is not available in this build.");
      worktree = await service.create(`run-${Date.now().toString(36)}`, ctx.signal);
    }
    // `/name args`: a prompt command (Claude Code, Gemini CLI) expanded into its text
    const expanded = !opts.resume && prompt ? await expandCommand(ctx, host, prompt, base) : undefined;
    const common: AgentRunOptions = {
      ...base,
      prompt: expanded?.prompt ?? prompt,
      model: opts.model ?? expanded?.model,
      maxSteps: opts.maxSteps,
      onPromptAdded: expanded?.started,
    };
    // On a terminal, a session that paused for an approval is asked about first; the prompt follows once the paused turn ends with an answer.
    const decided = opts.resume ? await settleWaiting(runtime, opts.resume, base) : undefined;
    if (decided && (!prompt?.trim() || decided.reason !== "answer")) {
      endLine();
      return report(ctx, decided, "");
    }
    const out = opts.resume
      ? await runtime.resume(opts.resume, common)
      : await runtime.start({
          ...common,
          sessionId: opts.session,
          worktree: worktree && { name: worktree.name, path: worktree.path, branch: worktree.branch },
        });
    let note = "";
    if (worktree) {
      const done = await host.service("worktrees")!.finish(worktree.name, "keep", { signal: ctx.signal });
      note = `worktree ${worktree.name} kept at ${worktree.path} (branch ${worktree.branch}); changed: ${done.changedFiles.join(", ") || "nothing"}`;
    }
    endLine();
    report(ctx, out, note);
  });
}

/** The prompt command a `/name args` prompt names, expanded; undefined (with a note on stderr for an unknown `/name`) otherwise. */
async function expandCommand(ctx: CliContext, host: Host, prompt: string, base: AgentRunOptions): Promise<ExpandedPrompt | undefined> {
  const name = /^\s*\/([\w][\w:.-]*)(?:\s|$)/.exec(prompt)?.[1];
  if (!name) return undefined;
  const expanded = await host.service("prompt-commands")?.expand(prompt, { yes: base.yes, approver: base.approver, signal: base.signal, origin: "cli" });
  if (!expanded) ctx.io.stderr.write(`keel: no command or skill named /${name} (keel workflow list shows the commands); the prompt is sent as typed.\n`);
  return expanded;
}

/**
 * When session `id` waits for an approval and this run can ask (a terminal, no `--yes`): shows the
 * waiting call exactly, asks it, and continues the paused turn with the answer, as `keel sessions
 * approve|reject` would; its outcome. Undefined when there is nothing to ask (the runtime then says
 * how to decide it). Ctrl-C at the question cancels the run.
 */
async function settleWaiting(runtime: AgentRuntime, id: string, base: AgentRunOptions): Promise<AgentOutcome | undefined> {
  if (!base.approver) return undefined;
  const request = await waitingApproval(runtime.host, id);
  if (!request) return undefined;
  const answer = await base.approver.approve(request, base.signal ?? new AbortController().signal);
  return runtime.decide(id, answer === "no" ? "reject" : "approve", base);
}

/** `keel sessions approve|reject ID`: decides the paused call and continues the run. */
export async function decideCommand(ctx: CliContext, id: string, decision: "approve" | "reject"): Promise<void> {
  await withAgent(ctx, async (runtime, base, endLine) => {
    const out = await runtime.decide(id, decision, base);
    endLine();
    report(ctx, out, "");
  });
}

async function withAgent(ctx: CliContext, fn: (runtime: AgentRuntime, base: AgentRunOptions, endLine: () => void) => Promise<void>): Promise<void> {
  const g = ctx.globals();
  const approver = ctx.io.interactive && !g.yes ? ttyApprover(ctx.io.stdin, ctx.io.stderr, ctx.interrupt) : undefined;
  // The answer streams to stdout; tool activity goes to stderr, each line after the answer's partial line ends.
  let midLine = false;
  const stderr = ctx.io.stderr;
  // "thinking…" while the model is asked: on a terminal only (never in redirected stderr or --json)
  const thinking = !g.json && (stderr as { isTTY?: boolean }).isTTY ? new ThinkingIndicator(stderr, useColor(stderr, ctx.io.env)) : undefined;
  const endLine = () => {
    thinking?.hide();
    if (midLine) ctx.io.stdout.write("\n");
    midLine = false;
  };
  const onText = g.json
    ? undefined
    : (delta: string) => {
        if (delta === "") return;
        thinking?.hide();
        midLine = !delta.endsWith("\n");
        ctx.io.stdout.write(terminalText(delta));
      };
  const activity = g.json
    ? undefined
    : new ActivityRenderer(stderr, { color: useColor(stderr, ctx.io.env), width: () => (stderr as { columns?: number }).columns, beforeLine: endLine });
  await ctx.withHost(
    async (host) => {
      // Config keel ignored or could not use (untrusted keys, unknown keys, code config files) is said before the run (the host said its notices already).
      for (const d of host.diagnostics.items)
        if ((d.source === "config" || d.source === "state") && d.severity !== "info" && !host.configInfo.notices?.includes(d))
          ctx.io.stderr.write(terminalText(`keel: ${formatDiagnostic(d)}`) + "\n");
      const runtime = host.service("agent-runtime");
      if (!runtime) throw new UsageError("The agent runtime is not loaded in this host.");
      try {
        await fn(
          runtime,
          {
            yes: g.yes,
            approver,
            signal: ctx.signal,
            onText,
            onEvent:
              activity &&
              ((e, from) => {
                if (e.type === "model_call" && !midLine) thinking?.show();
                activity.event(e, from);
              }),
          },
          endLine,
        );
      } finally {
        // also when the run throws: the indicator never stays over an error message
        endLine();
      }
    },
    // The model may call any tool: every server starts (runs, resumes, approvals). One with a fresh
    // cached tool list starts in the background, so it never delays the first model request; its
    // tools are in the menu from the cache, a call of one waits for the start, and a changed list
    // reaches the next request's menu.
    { approver, startServers: "background" },
  );
}

/** Exit code: 0 for an answer and for a run paused for approval (it ran and waits; not a failure), 1 otherwise. */
function report(ctx: CliContext, out: AgentOutcome, note: string): void {
  if (ctx.globals().json) {
    ctx.print({ ...out, ...(note ? { worktree: note } : {}) }, () => undefined);
  } else {
    if (out.message) ctx.io.stderr.write(terminalText(out.message) + "\n");
    if (note) ctx.io.stderr.write(terminalText(note) + "\n");
    ctx.io.stderr.write(`[session ${out.sessionId} · ${out.reason} · ${out.usage.modelCalls} model calls, ${out.usage.toolCalls} tool calls]\n`);
  }
  // a pause for approval and a hook's `continue: false` are outcomes the user asked for, not failures
  ctx.setExitCode(out.reason === "answer" || out.reason === "awaiting_approval" || out.reason === "hook_stop" ? 0 : 1);
}
