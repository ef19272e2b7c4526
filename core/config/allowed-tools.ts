import type { ToolDefinition } from "../types.js";

/**
 * True when Claude Code `allowed-tools` entries (`Bash(git status:*)`, …) allow running `command`
 * with `bash`: its `Bash(…)` entries become keel allow rules, judged as keel's allow rules are (only a
 * single static simple command matches). Loads the rule translator and the shell parser on first use.
 */
export async function allowedToolsAllowBash(
  allowedTools: readonly string[],
  bash: ToolDefinition,
  command: string,
  cwd: string,
  root: string,
): Promise<boolean> {
  const [{ translateClaudeRule }, { PermissionPolicy }] = await Promise.all([import("./claude-rules.js"), import("../permissions.js")]);
  const allow = allowedTools.filter((e) => /^Bash\b/.test(e.trim())).flatMap((e) => translateClaudeRule(e.trim(), "allow").rules);
  if (!allow.length) return false;
  const policy = new PermissionPolicy({ allow });
  await policy.ready();
  return policy.decide("bash", bash, { command }, cwd, root).action === "allow";
}
