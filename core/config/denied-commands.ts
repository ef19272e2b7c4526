import type { ToolDefinition } from "../types.js";

/** Says why a bash call runs a denied command prefix (the prefix, or the reason keel failed closed), or undefined when it does not. */
export type CommandDenier = (bash: ToolDefinition, input: unknown, cwd: string, root: string) => string | undefined;

/**
 * A checker for command prefixes that must not run (a Gemini CLI extension's `run_shell_command(rm)`):
 * each prefix becomes keel deny rules (`rm` and `rm *`, as Claude Code's `Bash(rm:*)` does) judged
 * exactly as keel's own deny rules are: every simple command of the line is checked, and a line keel
 * cannot check statically is refused (failing closed). Loads the rule translator and the shell parser.
 */
export async function commandDenier(prefixes: readonly string[]): Promise<CommandDenier> {
  const [{ translateClaudeRule }, { PermissionPolicy }] = await Promise.all([import("./claude-rules.js"), import("../permissions.js")]);
  const prefixOf = new Map<string, string>();
  for (const prefix of prefixes) for (const rule of translateClaudeRule(`Bash(${prefix}:*)`, "deny").rules) if (!prefixOf.has(rule)) prefixOf.set(rule, prefix);
  const policy = new PermissionPolicy({ deny: [...prefixOf.keys()] });
  await policy.ready();
  return (bash, input, cwd, root) => {
    const decision = policy.decide("bash", bash, input, cwd, root);
    if (decision.action !== "deny") return undefined;
    return decision.rule ? `the command runs "${prefixOf.get(decision.rule) ?? decision.rule}"` : decision.reason;
  };
}
