import picomatch from "picomatch";
import { relative, resolve } from "node:path";
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
  spec?: string;
  pathMatch?: (s: string) => boolean;
  textMatch?: RegExp;
}

/** Compiles `name(spec)` into matchers once. */
function compile(rule: string): CompiledRule {
  const m = /^([^()]+?)(?:\((.*)\))?$/.exec(rule.trim());
  const name = m?.[1] ?? rule;
  const spec = m?.[2];
  const out: CompiledRule = { text: rule, name: picomatch(name, { nocase: false }) };
  if (spec !== undefined) {
    out.spec = spec;
    out.pathMatch = picomatch(spec, { dot: true });
    out.textMatch = new RegExp(
      "^" + spec.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[\\s\\S]*") + "$",
    );
  }
  return out;
}

/**
 * Decides allow / ask / deny for a call. Deny beats ask beats allow; with no matching
 * rule, tools whose risk is only `read` are allowed and everything else asks.
 * Rules match the called name and the resolved tool name, so aliases cannot dodge a rule.
 * For shell commands, an allow specifier never matches a compound command (`;`, `&&`, `|`, `$(...)`, `>`/`<` redirections)
 * unless the rule itself contains one, while deny and ask specifiers match any part of it.
 */
export class PermissionPolicy {
  private readonly deny: CompiledRule[];
  private readonly ask: CompiledRule[];
  private readonly allow: CompiledRule[];

  constructor(rules: PermissionRules = {}) {
    this.deny = (rules.deny ?? []).map(compile);
    this.ask = (rules.ask ?? []).map(compile);
    this.allow = (rules.allow ?? []).map(compile);
  }

  /** Decides for one call. Path arguments (relative to `cwd`) are matched relative to `root`, so `write_file(src/**)` means the workspace's src/. Never throws. */
  decide(calledAs: string, tool: ToolDefinition, input: unknown, cwd: string, root = cwd): PermissionDecision {
    // Allocation-free until a decision is made: this runs on every call.
    const resolved = calledAs === tool.name ? undefined : tool.name;
    const arg = argumentOf(tool, input, cwd, root);
    const hit = first(this.deny, calledAs, resolved, tool, arg, "deny") ?? first(this.ask, calledAs, resolved, tool, arg, "ask") ?? first(this.allow, calledAs, resolved, tool, arg, "allow");
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
