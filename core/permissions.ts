import picomatch from "picomatch";
import { relative, resolve } from "node:path";
import type { TrustLevel } from "./config/config-sources.js";
import { protectedDirOf } from "./protected-paths.js";
import type { ToolDefinition } from "./types.js";

/** What the permission layer decided, and why. */
export interface PermissionDecision {
  action: "allow" | "ask" | "deny";
  /** The rule that matched, when one did. */
  rule?: string;
  reason: string;
}

/** Permission rules as written in config. */
export interface PermissionRules {
  allow?: string[];
  ask?: string[];
  deny?: string[];
}

interface CompiledRule {
  text: string;
  name: (s: string) => boolean;
  /** The tool name when the rule names exactly one tool (no glob characters). */
  exactName?: string;
  /** Who wrote the rule (allow rules): an alias name only borrows a rule at least as trusted as the alias's plugin. */
  level: TrustLevel;
  spec?: string;
  pathMatch?: (s: string) => boolean;
  textMatch?: RegExp;
}

/** Compiles `name(spec)` into matchers once. */
function compile(rule: string, level: TrustLevel = "user"): CompiledRule {
  const m = /^([^()]+?)(?:\((.*)\))?$/.exec(rule.trim());
  const name = m?.[1] ?? rule;
  const spec = m?.[2];
  const out: CompiledRule = { text: rule, name: picomatch(name, { nocase: false }), level };
  if (!/[*?[\]{}!+@()]/.test(name)) out.exactName = name;
  if (spec !== undefined) {
    out.spec = spec;
    out.pathMatch = picomatch(spec, { dot: true });
    out.textMatch = new RegExp(
      "^" + spec.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[\\s\\S]*") + "$",
    );
  }
  return out;
}

/** Who registered the alias a call came through (its plugin's level). */
export interface AliasInfo {
  level: TrustLevel;
}

/**
 * Decides allow / ask / deny for a call. Writes into `.git/` and `.keel/` are denied first, whatever
 * the rules say. Deny beats ask beats allow; with no matching rule, tools whose risk is only `read`
 * are allowed and everything else asks. Deny and ask rules match the called name and the resolved
 * tool name, so aliases cannot dodge them. Names cannot borrow permissions: an allow rule matches
 * the tool that actually executes, or an alias only when it names that alias exactly and comes
 * from a level at least as trusted as the alias's plugin (a glob such as `task_*` never allows an
 * alias of bash called `task_list2`).
 * For shell commands, an allow specifier never matches a compound command (`;`, `&&`, `|`, `$(...)`, `>`/`<` redirections)
 * unless the rule itself contains one, while deny and ask specifiers match any part of it.
 */
export class PermissionPolicy {
  private readonly deny: CompiledRule[];
  private readonly ask: CompiledRule[];
  private readonly allow: CompiledRule[];

  /** `allowLevels`: who wrote each allow rule (default: the user). */
  constructor(rules: PermissionRules = {}, allowLevels: Record<string, TrustLevel> = {}) {
    this.deny = (rules.deny ?? []).map((r) => compile(r));
    this.ask = (rules.ask ?? []).map((r) => compile(r));
    this.allow = (rules.allow ?? []).map((r) => compile(r, allowLevels[r] ?? "user"));
  }

  /** Decides for one call. Path arguments (relative to `cwd`) are matched relative to `root`, so `write_file(src/**)` means the workspace's src/. `alias`: the alias the call came through, when it did. Never throws. */
  decide(calledAs: string, tool: ToolDefinition, input: unknown, cwd: string, root = cwd, alias?: AliasInfo): PermissionDecision {
    // Allocation-free until a decision is made: this runs on every call.
    const resolved = calledAs === tool.name ? undefined : tool.name;
    const arg = argumentOf(tool, input, cwd, root);
    if (arg !== undefined && tool.permissionMatch === "path" && tool.risk.includes("write")) {
      const dir = protectedDirOf(root, resolve(root, arg));
      if (dir) return { action: "deny", reason: `"${arg}" is inside ${dir}/, which keel protects: tool writes into .git/ and .keel/ are always refused, whatever allow rules or --yes say (they could plant git hooks or change keel's own state)` };
    }
    const hit = first(this.deny, calledAs, resolved, tool, arg, "deny") ?? first(this.ask, calledAs, resolved, tool, arg, "ask") ?? firstAllow(this.allow, calledAs, tool, arg, alias);
    if (hit) return { action: hit.action, rule: hit.rule.text, reason: `${hit.action} rule "${hit.rule.text}" matched` };
    for (const r of tool.risk) {
      if (r !== "read") return { action: "ask", reason: `tools with risk ${tool.risk.filter((x) => x !== "read").join(", ")} ask by default` };
    }
    return READ_ONLY_ALLOWED;
  }
}

/** The decision for a read-only tool no rule names (shared: decisions are never modified). */
const READ_ONLY_ALLOWED: PermissionDecision = Object.freeze({ action: "allow", reason: "read-only tools are allowed by default" });

/** The first of `rules` matching the call, with the action it stands for. */
function first(rules: CompiledRule[], calledAs: string, resolved: string | undefined, tool: ToolDefinition, arg: string | undefined, action: PermissionDecision["action"]): { rule: CompiledRule; action: PermissionDecision["action"] } | undefined {
  for (const rule of rules) if (matches(rule, calledAs, resolved, tool, arg, action)) return { rule, action };
  return undefined;
}

/** The first allow rule for the executing tool, or naming this alias exactly from a level at least as trusted as the alias. */
function firstAllow(rules: CompiledRule[], calledAs: string, tool: ToolDefinition, arg: string | undefined, alias: AliasInfo | undefined): { rule: CompiledRule; action: "allow" } | undefined {
  const viaAlias = calledAs !== tool.name;
  for (const rule of rules) {
    if (matches(rule, tool.name, undefined, tool, arg, "allow")) return { rule, action: "allow" };
    const borrows = viaAlias && rule.exactName === calledAs && (rule.level === "user" || alias?.level === "workspace");
    if (borrows && matches(rule, calledAs, undefined, tool, arg, "allow")) return { rule, action: "allow" };
  }
  return undefined;
}

/** Shell control operators, substitutions and redirections: a command containing them does more than the rule names. */
const SHELL_META = /[;&|\n\r`<>]|\$\(/;

function matches(rule: CompiledRule, calledAs: string, resolved: string | undefined, tool: ToolDefinition, arg: string | undefined, action: PermissionDecision["action"]): boolean {
  if (!rule.name(calledAs) && (resolved === undefined || !rule.name(resolved))) return false;
  if (rule.spec === undefined) return true;
  if (arg === undefined) return false;
  if (tool.permissionMatch === "path") return rule.pathMatch!(arg);
  if (tool.permissionKey !== "command") return rule.textMatch!.test(arg);
  // Shell commands: `bash(git status*)` must not allow `git status; rm -rf x`, and
  // `bash(rm -rf*)` must still deny `cd x && rm -rf y`.
  if (action === "allow") return rule.textMatch!.test(arg) && (!SHELL_META.test(arg) || SHELL_META.test(rule.spec));
  return rule.textMatch!.test(arg) || commandSegments(arg).some((s) => rule.textMatch!.test(s));
}

/** The simple commands of a command line, split on `;`, `&&`, `||`, `|`, `&`, newlines and substitutions. */
function commandSegments(command: string): string[] {
  return command
    .split(/&&|\|\||[;&|\n`]|\$\(|\)/)
    .map((s) => s.trim())
    .filter(Boolean);
}

function argumentOf(tool: ToolDefinition, input: unknown, cwd: string, root: string): string | undefined {
  if (!tool.permissionKey || input === null || typeof input !== "object") return undefined;
  const value = (input as Record<string, unknown>)[tool.permissionKey];
  if (typeof value !== "string") return undefined;
  if (tool.permissionMatch !== "path") return value;
  const rel = relative(root, resolve(cwd, value));
  return rel === "" ? "." : rel;
}
