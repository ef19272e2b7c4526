import { globMatcher } from "../glob-matcher.js";
import { claudeBashToSpecs } from "./claude-bash-pattern.js";
import { claudePathToGlob, type PermissionList } from "./claude-path-pattern.js";

export type { PermissionList } from "./claude-path-pattern.js";

/** The result of translating one rule: the keel rules it stands for, and why not (or not all of it) when keel cannot express it. */
export interface RuleTranslation {
  rules: string[];
  warning?: string;
}

/** How to read rules whose meaning differs between the two dialects. */
export interface TranslateOptions {
  /**
   * `claude` for `.claude/settings*.json`: an allow rule whose tool name is a glob not anchored at
   * `mcp__<server>__` (`*`, `mcp__*`, `task_*`) is skipped with a warning, as Claude Code does.
   * `mixed` (default) for keel's and the legacy claw/codex files: such globs are keel rules and pass through.
   */
  dialect?: "claude" | "mixed";
  /** For a `.claude/settings*.json` below the workspace root: its project folder, relative to the root (see `claudePathToGlob`). */
  scope?: string;
}

/** keel's built-in tools that read, list or search files: Claude Code applies `Read` rules to every tool that reads files. */
const READ_TOOLS = ["read_file", "list_dir", "glob", "grep"] as const;

/** keel's built-in tools that change files: Claude Code applies `Edit` rules to every tool that edits files. */
const EDIT_TOOLS = ["edit_file", "write_file"] as const;

/** A Claude Code tool keel can stand in for: its keel tools, and (for `Read`) the tools a path-scoped deny also covers. */
interface ToolMapping {
  kind: "bash" | "path";
  tools: readonly string[];
  /** Claude Code documents that a `Read(path)` deny also blocks Edit and Write on that path. */
  pathDenyAlso?: readonly string[];
}

/** Claude Code tool names keel translates (exact, case-sensitive, as Claude Code matches them). */
const CLAUDE_TOOLS: Readonly<Record<string, ToolMapping>> = {
  Bash: { kind: "bash", tools: ["bash"] },
  Read: { kind: "path", tools: READ_TOOLS, pathDenyAlso: EDIT_TOOLS },
  Edit: { kind: "path", tools: EDIT_TOOLS },
  Write: { kind: "path", tools: ["write_file"] },
  MultiEdit: { kind: "path", tools: ["edit_file"] },
  Grep: { kind: "path", tools: ["grep"] },
  Glob: { kind: "path", tools: ["glob"] },
  LS: { kind: "path", tools: ["list_dir"] },
};

/** Claude Code tools keel has no counterpart for, with what they do (for the warning). */
const NO_COUNTERPART: Readonly<Record<string, string>> = {
  WebFetch: "keel has no web fetch tool",
  WebSearch: "keel has no web search tool",
  Task: "keel has no Claude Code subagent tool",
  Agent: "keel has no Claude Code subagent tool",
  NotebookEdit: "keel has no notebook tool",
  NotebookRead: "keel has no notebook tool",
  PowerShell: "keel has no PowerShell tool",
  TodoWrite: "keel has no TodoWrite tool",
  Skill: "keel has no Skill tool",
  SlashCommand: "keel has no slash-command tool",
  Cd: "keel has no /cd command",
};

/** Input fields of Claude Code's file tools that `Tool(param:value)` parameter rules may name. */
const FILE_TOOL_PARAMS = new Set([
  "file_path",
  "offset",
  "limit",
  "pages",
  "old_string",
  "new_string",
  "replace_all",
  "content",
  "pattern",
  "path",
  "glob",
  "output_mode",
  "type",
  "head_limit",
  "multiline",
  "ignore",
  "-A",
  "-B",
  "-C",
  "-i",
  "-n",
]);

/** Why an unanchored tool-name glob in a Claude Code allow list is skipped. */
const UNANCHORED_ALLOW = "Claude Code accepts a tool-name glob in an allow rule only after a literal `mcp__<server>__` prefix, and skips this one";

/** Characters that make a tool name a glob. */
const NAME_GLOB = /[*?[\]{}!+@]/;

/**
 * Translates one permission rule, Claude Code syntax or keel syntax, into keel rules for `list`.
 * Claude Code rules (a capitalised tool name, or `mcp__...`) follow Claude Code's documented
 * syntax: `Bash(...)` → `bash(...)`, `Read(path)` → keel's file-reading tools, `Edit(path)` →
 * `edit_file` and `write_file`, `mcp__server` → `mcp__server__*`. keel rules (lower-case tool names
 * such as `bash(git status*)`) pass through unchanged, malformed or not (keel's config schema
 * judges them, failing closed). A Claude Code rule keel cannot express returns no rules
 * (or only the part it can) and a `warning` naming the rule and why. Pure; never throws.
 */
export function translateClaudeRule(rule: string, list: PermissionList, options: TranslateOptions = {}): RuleTranslation {
  const text = rule.trim();
  if (!text) return skip(rule, "it is empty");
  const m = /^([^()]+?)(?:\((.*)\))?$/s.exec(text);
  const name = m?.[1] ?? text;
  const glob = NAME_GLOB.test(name);
  const claude = /^[A-Z]/.test(name) || name.startsWith("mcp__") || (glob && /[A-Z]/.test(name));
  if (!claude) {
    // keel syntax: unchanged (keel's config schema rejects a malformed one, failing closed).
    if (glob && list === "allow" && options.dialect === "claude") return skip(rule, UNANCHORED_ALLOW);
    return { rules: [text] };
  }
  if (!m || /\s/.test(name)) return skip(rule, "it is not a rule of the form `Tool` or `Tool(specifier)`");
  const spec = m[2];
  if (name.startsWith("mcp__")) return mcpRule(rule, name, spec, list, options);
  if (glob) return toolNameGlob(rule, name, spec, list);
  const mapping = CLAUDE_TOOLS[name];
  if (!mapping)
    return skip(rule, NO_COUNTERPART[name] ?? `"${name}" is not a Claude Code tool keel knows (keel's own tool names are lower-case, e.g. read_file)`);
  if (spec === undefined) return { rules: [...mapping.tools] };
  if (mapping.kind === "bash") {
    const bash = claudeBashToSpecs(spec);
    if ("error" in bash) return skip(rule, bash.error);
    return { rules: bash.specs.map((s) => (s === "" ? "bash" : `bash(${s})`)) };
  }
  const param = /^\s*(-?[A-Za-z_][\w]*)\s*:/.exec(spec);
  if (param && FILE_TOOL_PARAMS.has(param[1]!))
    return skip(rule, `"${param[1]}:" makes it a parameter rule (Tool(param:value)), which keel's path rules cannot express`);
  const path = claudePathToGlob(spec, list, options.scope);
  if ("error" in path) return skip(rule, path.error);
  const tools = list === "deny" ? [...mapping.tools, ...(mapping.pathDenyAlso ?? [])] : mapping.tools;
  return { rules: tools.map((t) => `${t}(${path.glob})`) };
}

/** One warning of a translated list: where it is (`permissions.deny[2]`) and why. */
export interface RuleWarning {
  list: PermissionList;
  index: number;
  /** The rule's path in the file, e.g. `permissions.deny[2]`. */
  path: string;
  rule: string;
  message: string;
}

/**
 * Translates one list of rules (as `translateClaudeRule`), keeping order and dropping duplicates;
 * a non-string entry is skipped with a warning. Warnings carry the index in `raw`. Never throws.
 */
export function translatePermissionRules(
  raw: readonly unknown[],
  list: PermissionList,
  options: TranslateOptions = {},
): { rules: string[]; warnings: { index: number; message: string }[] } {
  // A Set keeps insertion order and dedupes in constant time (a committed file may hold many rules).
  const rules = new Set<string>();
  const warnings: { index: number; message: string }[] = [];
  raw.forEach((entry, index) => {
    if (typeof entry !== "string") {
      warnings.push({
        index,
        message: `A permission rule must be a string such as "Bash(git status)" or "bash(git status*)" (got ${entry === null ? "null" : typeof entry}); it was skipped.`,
      });
      return;
    }
    const t = translateClaudeRule(entry, list, options);
    for (const r of t.rules) rules.add(r);
    if (t.warning) warnings.push({ index, message: t.warning });
  });
  return { rules: [...rules], warnings };
}

/**
 * Translates a whole `permissions` block (`{allow, ask, deny}`; missing or non-list entries count
 * as empty) into keel rules per list, with every warning located as `permissions.<list>[<index>]`
 * so the caller can report file, path and reason. Never throws.
 */
export function translatePermissionBlock(
  block: { allow?: unknown; ask?: unknown; deny?: unknown },
  options: TranslateOptions = {},
): { rules: Record<PermissionList, string[]>; warnings: RuleWarning[] } {
  const rules: Record<PermissionList, string[]> = { deny: [], ask: [], allow: [] };
  const warnings: RuleWarning[] = [];
  for (const list of ["deny", "ask", "allow"] as const) {
    const raw = block[list];
    if (!Array.isArray(raw)) continue;
    const t = translatePermissionRules(raw, list, options);
    rules[list] = t.rules;
    for (const w of t.warnings)
      warnings.push({ list, index: w.index, path: `permissions.${list}[${w.index}]`, rule: String(raw[w.index]), message: w.message });
  }
  return { rules, warnings };
}

/** `mcp__server` → every tool of the server; `mcp__server__tool` and deny/ask globs as written; allow globs only under a literal server. */
function mcpRule(rule: string, name: string, spec: string | undefined, list: PermissionList, options: TranslateOptions): RuleTranslation {
  if (spec !== undefined) return skip(rule, "MCP rules take no specifier (Claude Code skips `mcp__` rules with parentheses)");
  const parts = name.slice("mcp__".length).split("__");
  if (parts.some((p) => p === "")) return skip(rule, "an MCP rule is `mcp__<server>` or `mcp__<server>__<tool>`");
  if (NAME_GLOB.test(name) && list === "allow" && options.dialect === "claude" && (parts.length < 2 || NAME_GLOB.test(parts[0]!)))
    return skip(rule, UNANCHORED_ALLOW);
  if (parts.length === 1 && !NAME_GLOB.test(name)) return { rules: [`${name}__*`] };
  return { rules: [name] };
}

/** A glob over Claude Code tool names (`B*`, `*Edit`): in deny and ask lists, the keel tools of every Claude Code tool it matches; skipped in allow lists, as Claude Code does. */
function toolNameGlob(rule: string, name: string, spec: string | undefined, list: PermissionList): RuleTranslation {
  if (list === "allow") return skip(rule, UNANCHORED_ALLOW);
  if (spec !== undefined) return skip(rule, "a tool-name glob takes no specifier");
  const isMatch = globMatcher(name, {}, "all");
  const tools = Object.keys(CLAUDE_TOOLS).filter((t) => isMatch(t));
  const rules = [...new Set(tools.flatMap((t) => CLAUDE_TOOLS[t]!.tools))];
  return rules.length ? { rules } : skip(rule, "the tool-name glob matches no Claude Code tool keel has a counterpart for");
}

/** No keel rules, and a warning naming the rule and why. */
function skip(rule: string, why: string): RuleTranslation {
  return { rules: [], warning: `Permission rule "${rule}" was not translated: ${why}. It has no effect in keel.` };
}
