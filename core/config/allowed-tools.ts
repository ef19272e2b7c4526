import type { ToolDefinition } from "../types.js";

/**
 * True when Claude Code `allowed-tools` entries (`Read`, `Bash(git status:*)`, `mcp__github`, …)
 * allow this call: the entries become keel allow rules (the Claude rule translator), judged as
 * keel's allow rules are (a shell command only as a single static simple command). Loads the rule
 * translator and the shell parser on first use.
 */
export async function allowedToolsAllow(
  allowedTools: readonly string[],
  calledAs: string,
  tool: ToolDefinition,
  input: unknown,
  cwd: string,
  root: string,
): Promise<boolean> {
  if (!allowedTools.length) return false;
  const [{ translateClaudeRule }, { PermissionPolicy }] = await Promise.all([import("./claude-rules.js"), import("../permissions.js")]);
  const allow = allowedTools.flatMap((e) => translateClaudeRule(e.trim(), "allow", { dialect: "claude" }).rules);
  if (!allow.length) return false;
  const policy = new PermissionPolicy({ allow });
  if (tool.permissionKey === "command") await policy.ready();
  // an allow rule must have matched (a read-only tool is allowed by default, which says nothing about allowed-tools)
  const decision = policy.decide(calledAs, tool, input, cwd, root);
  return decision.action === "allow" && decision.rule !== undefined;
}

/** allowedToolsAllow for a `bash` command line, counting only the `Bash(…)` entries (prompt commands' `` !`cmd` `` lines). */
export function allowedToolsAllowBash(allowedTools: readonly string[], bash: ToolDefinition, command: string, cwd: string, root: string): Promise<boolean> {
  return allowedToolsAllow(
    allowedTools.filter((e) => /^Bash\b/.test(e.trim())),
    "bash",
    bash,
    { command },
    cwd,
    root,
  );
}
