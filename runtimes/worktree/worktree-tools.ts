import { KeelError, type ToolDefinition, ToolError, type ToolResult, UsageError } from "../../core/index.js";
import { defineTool } from "../../core/index.js";
import { MAX_WORKTREE_NAME } from "./worktree-name.js";
import type { WorktreeManager } from "./worktree-manager.js";

const SOURCE = { kind: "runtime", id: "worktree" } as const;

/** The worktree tools (`worktree_enter`, `worktree_exit`, `worktree_status`, `worktree_list`) bound to one manager. */
export function worktreeTools(manager: WorktreeManager): ToolDefinition[] {
  return [
    defineTool(
      {
        type: "object",
        properties: {
          name: {
            type: "string",
            pattern: "^[A-Za-z0-9._-]+$",
            maxLength: MAX_WORKTREE_NAME,
            description: "Worktree name (letters, digits, . _ -; at most 64; no ..). Default: generated.",
          },
        },
        additionalProperties: false,
      },
      {
        name: "worktree_enter",
        description:
          "Create a git worktree (.keel/worktrees/<name> on a new branch keel/<name> from HEAD) and work inside it: file tools and bash then operate in the worktree until worktree_exit. Use it to try risky changes you may keep, merge or throw away.",
        source: SOURCE,
        risk: ["write"],
        readOnly: false,
        timeoutMs: 60_000,
        execute: (input, ctx) =>
          guard(async () => {
            const info = await manager.enter(input.name, ctx.signal);
            return {
              content: `Entered worktree "${info.name}" at ${info.path} (branch ${info.branch}, from ${info.baseBranch}). Tools now operate inside it.`,
              data: info,
              metadata: { action: "worktree_enter" },
            };
          }),
      },
    ),
    defineTool(
      {
        type: "object",
        properties: {
          action: { type: "string", enum: ["keep", "merge", "discard"] },
          force: { type: "boolean", description: "Discard even with uncommitted or unmerged work (it is saved first)." },
        },
        required: ["action"],
        additionalProperties: false,
      },
      {
        name: "worktree_exit",
        description:
          "Leave the active worktree. action: keep (leave worktree and branch), merge (commit pending changes and merge into the original branch; aborts cleanly on conflicts), discard (remove it; refuses with unsaved work unless force, and even then saves the work under refs/keel/discarded/).",
        source: SOURCE,
        risk: ["write"],
        readOnly: false,
        timeoutMs: 120_000,
        execute: (input, ctx) =>
          guard(async () => {
            const result = await manager.exit(input.action, { force: input.force, signal: ctx.signal });
            return {
              ok: result.ok,
              code: result.ok ? undefined : "precondition_failed",
              content: result.message,
              data: result,
              metadata: { action: "worktree_exit" },
            };
          }),
      },
    ),
    defineTool(
      { type: "object", properties: {}, additionalProperties: false },
      {
        name: "worktree_status",
        description: "Show the active worktree: path, branch, uncommitted files, unmerged commits and files changed since it was created.",
        source: SOURCE,
        risk: ["read"],
        readOnly: true,
        execute: (_input, ctx) =>
          guard(async () => {
            const status = await manager.status(ctx.signal);
            const a = status.active;
            const content = status.problem
              ? status.problem
              : a
                ? `Active worktree "${a.name}" at ${a.path} (branch ${a.branch}, from ${a.baseBranch}). Uncommitted: ${a.uncommitted.length ? a.uncommitted.join(", ") : "none"}. Unmerged commits: ${a.unmergedCommits}. Changed since base: ${a.changedFiles.length ? a.changedFiles.join(", ") : "none"}.`
                : `No worktree is active (${status.managed} managed).`;
            return { content, data: status };
          }),
      },
    ),
    defineTool(
      { type: "object", properties: {}, additionalProperties: false },
      {
        name: "worktree_list",
        description: "List keel's managed worktrees of this workspace (name, branch, base, active, whether the directory still exists).",
        source: SOURCE,
        risk: ["read"],
        readOnly: true,
        execute: (_input, ctx) =>
          guard(async () => {
            const rows = await manager.list(ctx.signal);
            const note = (r: (typeof rows)[number]) => (r.ignored ? ` (ignored: ${r.ignored})` : r.exists ? "" : " (stale: directory gone)");
            const content = rows.length
              ? rows.map((r) => `${r.active ? "* " : "  "}${r.name}  ${r.branch} from ${r.baseBranch}${note(r)}`).join("\n")
              : "No managed worktrees.";
            return { content, data: { worktrees: rows } };
          }),
      },
    ),
  ];
}

/** Turns usage/configuration errors into `precondition_failed` observations the model can act on. */
async function guard(fn: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof UsageError) throw new ToolError(error.message, "precondition_failed");
    if (error instanceof KeelError && !(error instanceof ToolError)) throw new ToolError(error.message, "execution_failed");
    throw error;
  }
}
