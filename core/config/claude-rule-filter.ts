import type { ToolDefinition } from "../types.js";

/** A Claude Code permission rule used as a filter (a hook's `if`), compiled once. */
export interface RuleFilter {
  /** The rule as written. */
  readonly rule: string;
  /** Why keel cannot apply it, when it cannot (the filter then matches every call: the hook runs). */
  readonly warning?: string;
  /** True when the call matches the rule. */
  matches(calledAs: string, tool: ToolDefinition, input: unknown, cwd: string, root: string): Promise<boolean>;
}

/**
 * Compiles a Claude Code permission rule (`Bash(git commit:*)`, `Edit(src/**)`) into a call filter,
 * judged as a keel deny rule is: a shell line matches when any of its simple commands does, and a
 * line keel cannot check statically matches (failing towards running the hook). A rule keel cannot
 * translate matches every call and carries a `warning`. Loads the translator and shell parser on first use.
 */
export async function compileRuleFilter(rule: string): Promise<RuleFilter> {
  const [{ translateClaudeRule }, { PermissionPolicy }] = await Promise.all([import("./claude-rules.js"), import("../permissions.js")]);
  const translated = translateClaudeRule(rule, "deny");
  if (!translated.rules.length) return { rule, warning: translated.warning ?? `"${rule}" names no tool keel has`, matches: async () => true };
  const policy = new PermissionPolicy({ deny: translated.rules });
  return {
    rule,
    async matches(calledAs, tool, input, cwd, root) {
      await policy.ready();
      return policy.decide(calledAs, tool, input, cwd, root).action === "deny";
    },
  };
}
