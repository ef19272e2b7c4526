import { errorMessage, ToolError } from "../errors.js";
import type { GuidanceEntry } from "../hooks.js";
import type { Host } from "../host.js";
import type { WorktreeInfo } from "../services.js";
import { defineTool } from "../define-tool.js";
import { approvalReadByModel } from "../settle-ask.js";
import type { KeelEvent, ToolDefinition } from "../types.js";
import type { SubAgentOrigin } from "./active-session.js";
import type { AgentOutcome, AgentRuntime } from "./agent-runtime.js";
import { agentTypes, chooseAgentType, describeAgentTypes } from "./agent-type-choice.js";
import { DELEGATE_AGENT, MAX_DELEGATION_DEPTH } from "./tool-menu.js";
import { entry } from "./tool-guidance.js";

/**
 * `delegate_agent`: runs a child session linked to the calling session (its own directory
 * and events; depth limit 3). `isolation: "worktree"` runs the child in a fresh managed
 * worktree (kept afterwards) and the result says what changed and where. Fires
 * `beforeDelegate` / `afterDelegate`. `agent` runs a sub-agent type (its prompt, tools and model; the
 * description lists the types known when the tool is registered). Failures become observations.
 */
export function delegateAgentTool(host: Host, runtime: AgentRuntime): ToolDefinition {
  const inputSchema = {
    type: "object",
    properties: {
      prompt: { type: "string", description: "The complete task for the sub-agent" },
      agent: { type: "string", description: "Agent type to run (one of those listed in this tool's description); default: a general sub-agent" },
      tools: { type: "array", items: { type: "string" }, description: "Tool names the sub-agent may use (default: all)" },
      isolation: { type: "string", enum: ["none", "worktree"], description: "worktree: work in a fresh git worktree, not the current checkout" },
      max_steps: { type: "integer", minimum: 1, maximum: 100, description: "Most model steps for the sub-agent (at most your own limit per turn)" },
    },
    required: ["prompt"],
    additionalProperties: false,
  } as const;
  return defineTool(inputSchema, {
    name: DELEGATE_AGENT,
    description: describeAgentTypes(
      "Delegate a self-contained task to a sub-agent with its own session. Optionally restrict its tools and isolate it in a git worktree; returns its final answer and session id.",
      agentTypes(host),
    ),
    source: { kind: "runtime", id: "agent" },
    risk: ["delegate"],
    readOnly: false,
    timeoutMs: 0,
    async execute(input, ctx) {
      const parent = ctx.sessionId ? runtime.active.get(ctx.sessionId) : undefined;
      if (!parent) throw new ToolError("delegate_agent only works inside an agent session (keel run).", "precondition_failed");
      if (parent.meta.depth >= MAX_DELEGATION_DEPTH)
        throw new ToolError(`Sub-agents nest at most ${MAX_DELEGATION_DEPTH} deep; do this task yourself.`, "precondition_failed");
      const resumed = parent.delegateDecision?.callId === ctx.callId ? parent.delegateDecision : undefined;
      let agent: string | undefined;
      const onEvent = parent.options.onEvent;
      const origin = (): SubAgentOrigin => ({ callId: ctx.callId, agent: agent ?? "sub-agent", depth: parent.meta.depth + 1 });
      // Called by the agent loop, a pause pauses the parent and its text goes to the user; called from a workflow step
      // a model ran (or in a command keel runs for a tool), a model reads it: approving is then the user's decision.
      const forModel = approvalReadByModel(host, ctx.run);
      const childOptions = {
        signal: ctx.signal,
        // whoever watches the parent (keel chat, keel run) sees the sub-agent's activity, under this call
        onEvent: onEvent && ((e: KeelEvent, from?: SubAgentOrigin) => onEvent(e, from ?? origin())),
        // the parent's own --yes, never the one-off approval of this delegate_agent call
        yes: Boolean(parent.options.yes || parent.state.yes),
        approver: parent.options.approver,
        onText: undefined,
        readByModel: forModel,
        // how the child ends otherwise (max_steps, a budget, a hook's stop) is always this call's result, which a model reads
        stopReadByModel: true,
      };
      let worktree: Pick<WorktreeInfo, "name" | "path" | "branch"> | undefined;
      let child: AgentOutcome;
      if (resumed) {
        // the child paused for an approval and the user decided: continue it (hooks before it fired the first time)
        child = await runtime.continueChild(resumed.child, resumed.decision, childOptions);
        // the session store is already loaded here (the parent session runs through it)
        const { readSessionMeta } = await import("../session/session-store.js");
        const childMeta = await readSessionMeta(host.workspace.stateDir, resumed.child);
        worktree = childMeta.worktree;
        agent = childMeta.agentType?.name;
      } else {
        const choice = input.agent === undefined ? undefined : chooseAgentType(host, input.agent, input.tools, parent.meta.model);
        const before = { host, sessionId: parent.id, prompt: input.prompt, prefix: [] as GuidanceEntry[] };
        const delegated = await host.hooks.beforeDelegate.promise(before).catch((error) => {
          parent.emit("hook_error", { hook: "beforeDelegate", message: errorMessage(error) });
          return before;
        });
        const prefix = (delegated ?? before).prefix;
        parent.emit("hook", { hook: "beforeDelegate", texts: prefix });
        const prompt = [...prefix.map((p) => entry(`${p.source}: `, p.text)), (delegated ?? before).prompt].join("\n\n");
        const name = `agent-${Date.now().toString(36)}`;
        if (input.isolation === "worktree") {
          const service = host.service("worktrees");
          if (!service)
            throw new ToolError('isolation "worktree" needs the worktree runtime, which is not loaded here. Use isolation "none".', "precondition_failed");
          worktree = await service.create(name, ctx.signal);
        }
        // a sub-agent never gets a tool its parent may not use: the parent's subset bounds every child
        const tools = withinParent(choice ? choice.tools : input.tools, parent.state.toolSubset);
        agent = choice?.agentType.name;
        parent.emit("delegate_start", { agent: choice?.agentType.name, tools, isolation: input.isolation ?? "none", worktree: worktree?.path });
        child = await runtime.start({
          ...childOptions,
          prompt,
          parentSessionId: parent.id,
          modelSpec: choice?.modelSpec ?? parent.meta.model,
          agentType: choice?.agentType,
          tools,
          // at most the parent's own cap per turn (--max-steps, else agent.maxSteps): the model cannot lift your limit by delegating
          maxSteps: Math.min(input.max_steps ?? Infinity, parent.options.maxSteps ?? parent.state.maxSteps ?? parent.settings.maxSteps),
          cwd: worktree ? undefined : ctx.cwd,
          worktree: worktree ? { name: worktree.name, path: worktree.path, branch: worktree.branch } : undefined,
        });
      }
      if (child.reason === "awaiting_approval") {
        // nobody can answer now: in the agent loop the parent pauses on this call, and deciding the child continues both
        parent.emit("delegate_paused", { childSessionId: child.sessionId });
        const decide = forModel
          ? "" // the child's message says deciding it is the user's (decideHint): no command for the model to run
          : ` Deciding it (keel sessions approve|reject ${child.sessionId}, or the same for ${parent.id}) continues the sub-agent and then this session.`;
        return {
          ok: false,
          code: "approval_required",
          content: `Sub-agent session ${child.sessionId} waits for approval: ${child.message ?? ""}${decide}`,
          metadata: { childSessionId: child.sessionId },
        };
      }
      let where = "";
      let changed: string[] = [];
      if (worktree) {
        const finished = await host.service("worktrees")!.finish(worktree.name, "keep", { signal: ctx.signal });
        changed = finished.changedFiles;
        where = `\nThe sub-agent worked in worktree "${worktree.name}" at ${worktree.path} (branch ${worktree.branch}); the parent checkout was not modified. Changed files: ${changed.length ? changed.join(", ") : "none"}. Merge with \`keel worktree\` or discard it when done.`;
      }
      const base = `Sub-agent session ${child.sessionId} ${child.ok ? "finished" : `stopped (${child.reason})`}:\n${[child.text, child.message !== child.text ? child.message : undefined].filter(Boolean).join("\n")}${where}`;
      const after = { host, sessionId: parent.id, childSessionId: child.sessionId, result: base, suffix: [] as GuidanceEntry[] };
      const done = await host.hooks.afterDelegate.promise(after).catch((error) => {
        parent.emit("hook_error", { hook: "afterDelegate", message: errorMessage(error) });
        return after;
      });
      parent.emit("hook", { hook: "afterDelegate", texts: (done ?? after).suffix });
      const result = [(done ?? after).result, ...(done ?? after).suffix.map((s) => entry(`${s.source}: `, s.text))].join("\n\n");
      parent.emit("delegate_end", { childSessionId: child.sessionId, reason: child.reason, changedFiles: changed });
      return {
        ok: child.ok,
        code: child.ok ? undefined : "execution_failed",
        content: result,
        data: {
          sessionId: child.sessionId,
          agent: agent ?? null,
          reason: child.reason,
          answer: child.text,
          worktree: worktree ? { name: worktree.name, path: worktree.path, branch: worktree.branch } : null,
          changedFiles: changed,
        },
        metadata: { childSessionId: child.sessionId },
      };
    },
  });
}

/** `wanted` narrowed to the parent's tool subset (the parent's subset itself when nothing is asked for; everything when neither is set). */
export function withinParent(wanted: readonly string[] | undefined, parentSubset: readonly string[] | undefined): string[] | undefined {
  if (!parentSubset) return wanted ? [...wanted] : undefined;
  if (!wanted) return [...parentSubset];
  const allowed = new Set(parentSubset);
  return wanted.filter((t) => allowed.has(t));
}
