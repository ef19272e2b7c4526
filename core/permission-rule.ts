import { compileGlob } from "./glob-matcher.js";
import type { TrustLevel } from "./config/config-sources.js";
import { pathKey } from "./name-key.js";
import type { PermissionCall } from "./permission-call.js";
import { Wildcard } from "./shell/wildcard.js";

/** Who registered the alias a call came through (its plugin's level). */
export interface AliasInfo {
  level: TrustLevel;
}

/** A permission rule (`name(spec)`) compiled into matchers. */
export interface CompiledRule {
  text: string;
  name: (s: string) => boolean;
  /** The tool name when the rule names exactly one tool (no glob characters). */
  exactName?: string;
  /** Who wrote the rule (allow rules; both levels when both did): an alias name only borrows a rule from its plugin's own level. */
  levels: readonly TrustLevel[];
  spec?: string;
  pathMatch?: (s: string) => boolean;
  /** `*` = any text, matched in linear time. */
  textMatch?: Wildcard;
  /** Why a glob of the rule could not be compiled (it then matches everything for deny/ask, nothing for allow). */
  unsupported?: string;
}

/** A rule glob compiled once: a glob that cannot be compiled holds for everything in deny/ask lists (failing closed) and for nothing in allow. */
export interface RuleGlob {
  match: (s: string) => boolean;
  unsupported?: string;
}

function ruleGlob(pattern: string, dot: boolean, list: RuleList): RuleGlob {
  const compiled = compileGlob(pattern, { dot });
  if ("match" in compiled) return compiled;
  return { match: list === "allow" ? () => false : () => true, unsupported: compiled.unsupported };
}

/** The list a rule is written in. */
export type RuleList = "allow" | "ask" | "deny";

/** Compiles `name(spec)` into matchers once. */
export function compileRule(rule: string, list: RuleList, names: Map<string, RuleGlob>, levels: readonly TrustLevel[] = ["user"]): CompiledRule {
  const m = /^([^()]+?)(?:\((.*)\))?$/.exec(rule.trim());
  const name = m?.[1] ?? rule;
  const spec = m?.[2];
  // Many rules share a tool name (`bash(…)`): one name matcher each. Path matchers compile on first use
  // (most rules are never checked against a path), so even a file of many rules loads quickly.
  const key = `${list === "allow" ? "allow" : "restrict"}:${name}`;
  let nameGlob = names.get(key);
  if (!nameGlob) names.set(key, (nameGlob = ruleGlob(name, false, list)));
  const out: CompiledRule = { text: rule, name: nameGlob.match, levels };
  if (nameGlob.unsupported) out.unsupported = nameGlob.unsupported;
  if (!/[*?[\]{}!+@()]/.test(name)) out.exactName = name;
  if (spec !== undefined) {
    out.spec = spec;
    let pathGlob: RuleGlob | undefined;
    let keyGlob: RuleGlob | undefined;
    // A deny or ask rule also holds for every name a folding volume gives the same file (`.ENV`, `.env.`
    // for `**/.env` on macOS or NTFS): it is matched, folded, against the path's `pathKey` too (failing closed).
    // An allow rule matches the path as written only.
    out.pathMatch = (s) => {
      if (!pathGlob) {
        pathGlob = ruleGlob(spec, true, list);
        out.unsupported ??= pathGlob.unsupported;
      }
      const matched = pathGlob.match(s);
      if (matched || list === "allow") return matched;
      const key = pathKey(s);
      const keySpec = spec.normalize("NFKC").toLowerCase();
      if (key === s && keySpec === spec) return false;
      keyGlob ??= ruleGlob(keySpec, true, list);
      return keyGlob.match(key);
    };
    out.textMatch = new Wildcard(spec);
  }
  return out;
}

/** The first deny or ask rule matching the call. */
export function firstRestricting(rules: CompiledRule[], call: PermissionCall): CompiledRule | undefined {
  for (const rule of rules) if (call.names(rule) && restricts(rule, call)) return rule;
  return undefined;
}

/** Whether a deny/ask rule's specifier covers the call: for shell commands, any part of it. */
function restricts(rule: CompiledRule, call: PermissionCall): boolean {
  if (rule.spec === undefined) return true;
  if (call.arg === undefined) return false;
  // Deny and ask rules match the path after resolution, and as written too (a rule naming a link still holds).
  if (call.tool.permissionMatch === "path") return rule.pathMatch!(call.resolvedArg!) || rule.pathMatch!(call.arg);
  if (rule.textMatch!.test(call.arg)) return true;
  return call.shell?.anyCommand((text) => rule.textMatch!.test(text)) ?? false;
}

/**
 * The first allow rule for the executing tool, or naming this alias exactly from the alias's own level: your
 * rule for your alias, a trusted workspace's rule for its alias. Your rule naming `deploy` was written for a
 * tool of yours (perhaps one this workspace lacks), not for whatever a cloned repository's plugin names `deploy`.
 */
export function firstAllowing(rules: CompiledRule[], call: PermissionCall, alias: AliasInfo | undefined): CompiledRule | undefined {
  const viaAlias = call.resolved !== undefined;
  for (const rule of rules) {
    const names = rule.name(call.tool.name) || (viaAlias && rule.exactName === call.calledAs && rule.levels.includes(alias?.level ?? "workspace"));
    if (names && permits(rule, call)) return rule;
  }
  return undefined;
}

/** Whether an allow rule's specifier covers the whole call: for shell commands, only a single static simple command it matches. */
function permits(rule: CompiledRule, call: PermissionCall): boolean {
  if (rule.spec === undefined) return true;
  if (call.arg === undefined) return false;
  // Allow rules match only where the path really leads: a symlink under src/ does not make its target src/.
  if (call.tool.permissionMatch === "path") return rule.pathMatch!(call.resolvedArg!);
  const shell = call.shell;
  if (!shell) return rule.textMatch!.test(call.arg);
  return shell.allowedBy(rule.spec, rule.textMatch!);
}
