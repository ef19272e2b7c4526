import { compileGlob } from "./glob-matcher.js";
import { realOrSelf, realTarget } from "./real-path.js";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { TrustLevel } from "./config/config-sources.js";
import { controlWriteOf, type ControlWrite } from "./control-files.js";
import { protectedDirOf } from "./protected-paths.js";
import type { ShellParser } from "./shell/shell-analysis.js";
import { ShellCall } from "./shell/shell-call.js";
import { Wildcard } from "./shell/wildcard.js";
import type { ToolDefinition } from "./types.js";

/** What the permission layer decided, and why. */
export interface PermissionDecision {
  action: "allow" | "ask" | "deny";
  /** The rule that matched, when one did. */
  rule?: string;
  reason: string;
  /** For `ask`: only an explicit answer approves it (not `--yes`, not an "always" of this session), because keel could not check the call exactly. */
  strict?: boolean;
  /** For `ask`: a write to a control file: an "always" given in this session (for the tool, on another call) does not approve it; an answer or `--yes` does. */
  control?: boolean;
}

/** Permission rules as written in config. */
export interface PermissionRules {
  allow?: string[];
  ask?: string[];
  deny?: string[];
}

/** Who registered the alias a call came through (its plugin's level). */
export interface AliasInfo {
  level: TrustLevel;
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
  /** `*` = any text, matched in linear time. */
  textMatch?: Wildcard;
  /** Why a glob of the rule could not be compiled (it then matches everything for deny/ask, nothing for allow). */
  unsupported?: string;
}

/** A rule glob compiled once: a glob that cannot be compiled holds for everything in deny/ask lists (failing closed) and for nothing in allow. */
interface RuleGlob {
  match: (s: string) => boolean;
  unsupported?: string;
}

function ruleGlob(pattern: string, dot: boolean, list: RuleList): RuleGlob {
  const compiled = compileGlob(pattern, { dot });
  if ("match" in compiled) return compiled;
  return { match: list === "allow" ? () => false : () => true, unsupported: compiled.unsupported };
}

type RuleList = "allow" | "ask" | "deny";

/** Compiles `name(spec)` into matchers once. */
function compile(rule: string, list: RuleList, names: Map<string, RuleGlob>, level: TrustLevel = "user"): CompiledRule {
  const m = /^([^()]+?)(?:\((.*)\))?$/.exec(rule.trim());
  const name = m?.[1] ?? rule;
  const spec = m?.[2];
  // Many rules share a tool name (`bash(…)`): one name matcher each. Path matchers compile on first use
  // (most rules are never checked against a path), so even a file of many rules loads quickly.
  const key = `${list === "allow" ? "allow" : "restrict"}:${name}`;
  let nameGlob = names.get(key);
  if (!nameGlob) names.set(key, (nameGlob = ruleGlob(name, false, list)));
  const out: CompiledRule = { text: rule, name: nameGlob.match, level };
  if (nameGlob.unsupported) out.unsupported = nameGlob.unsupported;
  if (!/[*?[\]{}!+@()]/.test(name)) out.exactName = name;
  if (spec !== undefined) {
    out.spec = spec;
    let pathGlob: RuleGlob | undefined;
    out.pathMatch = (s) => {
      if (!pathGlob) {
        pathGlob = ruleGlob(spec, true, list);
        out.unsupported ??= pathGlob.unsupported;
      }
      return pathGlob.match(s);
    };
    out.textMatch = new Wildcard(spec);
  }
  return out;
}

/**
 * Decides allow / ask / deny for a call. Writes into `.git/` and `.keel/` are denied first, whatever
 * the rules say; a write to a control file (core/control-files.ts) asks, whatever allow rules say. Deny beats ask beats allow; with no matching rule, tools whose risk is only `read`
 * are allowed and everything else asks. Deny and ask rules match the called name and the resolved
 * tool name, so aliases cannot dodge them. Names cannot borrow permissions: an allow rule matches
 * the tool that actually executes, or an alias only when it names that alias exactly and comes
 * from a level at least as trusted as the alias's plugin (a glob such as `task_*` never allows an
 * alias of bash called `task_list2`).
 * Shell commands are parsed: deny and ask rules match every simple command (after quote removal,
 * through wrappers, with `/bin/rm` reduced to `rm`); an allow rule only matches a single static
 * simple command. A command with parts keel cannot resolve statically fails closed when a deny rule
 * (denied) or an ask rule (strict ask) exists for the tool.
 */
export class PermissionPolicy {
  private readonly deny: CompiledRule[];
  private readonly ask: CompiledRule[];
  private readonly allow: CompiledRule[];
  private parser: ShellParser | undefined;
  private loading: Promise<void> | undefined;
  private hiddenList: readonly string[] | undefined;

  /** The hidden paths (see the constructor), found once. */
  private get hidden(): readonly string[] {
    return (this.hiddenList ??= this.hiddenPaths());
  }

  /**
   * `allowLevels`: who wrote each allow rule (default: the user). `hiddenPaths`: real paths of files and
   * folders no path tool may touch, whatever the rules say (keel's own secrets and your credential
   * stores, when they lie inside the workspace: see `Host`); asked for on the first path check
   * (finding them resolves a few dozen paths; a command that checks none never does).
   */
  constructor(
    rules: PermissionRules = {},
    allowLevels: Record<string, TrustLevel> = {},
    private readonly hiddenPaths: () => readonly string[] = () => [],
  ) {
    const names = new Map<string, RuleGlob>();
    this.deny = (rules.deny ?? []).map((r) => compile(r, "deny", names));
    this.ask = (rules.ask ?? []).map((r) => compile(r, "ask", names));
    this.allow = (rules.allow ?? []).map((r) => compile(r, "allow", names, allowLevels[r] ?? "user"));
  }

  /**
   * Loads the shell parser (once) that `decide` needs for tools whose argument is a command line.
   * The pipeline awaits it before deciding such a call; until it is loaded a command cannot be
   * checked and is treated as unresolved (failing closed).
   */
  ready(): Promise<void> {
    return (this.loading ??= import("unbash").then((m) => this.useShellParser(m)));
  }

  /** Uses an already loaded parser (embedders and tests that decide synchronously). */
  useShellParser(parser: ShellParser): void {
    this.parser = parser;
  }

  /** Decides for one call. Path arguments (relative to `cwd`) are matched relative to `root`, so `write_file(src/**)` means the workspace's src/. `alias`: the alias the call came through, when it did. Never throws. */
  decide(calledAs: string, tool: ToolDefinition, input: unknown, cwd: string, root = cwd, alias?: AliasInfo): PermissionDecision {
    // This runs on every call: the shell command is parsed only when a rule for the tool needs it.
    const resolved = calledAs === tool.name ? undefined : tool.name;
    const arg = argumentOf(tool, input, cwd, root);
    const secret = this.hidden.length && arg !== undefined && tool.permissionMatch === "path" ? this.hides(resolve(root, arg)) : undefined;
    if (secret)
      return {
        action: "deny",
        reason: `"${arg}" is inside ${secret}, which holds keel's tokens or your credentials: no tool reads or writes there, whatever allow rules or --yes say (set "sandbox": {"credentials": "visible"} to let tools see your credential stores)`,
      };
    let control: ControlWrite | undefined;
    if (arg !== undefined && tool.permissionMatch === "path" && tool.risk.includes("write")) {
      const abs = resolve(root, arg);
      const dir = protectedDirOf(root, abs);
      if (dir)
        return {
          action: "deny",
          reason: `"${arg}" is inside ${dir}/, which keel protects: tool writes into .git/ and .keel/ are always refused, whatever allow rules or --yes say (they could plant git hooks or change keel's own state)`,
        };
      control = controlWriteOf(root, abs, tool, input);
    }
    const call = new Call(calledAs, resolved, tool, arg, root, this.parser);
    const denied = first(this.deny, call);
    if (denied) return decision(denied, "deny");
    const denyNames = this.deny.some((r) => call.names(r));
    const askNames = this.ask.some((r) => call.names(r));
    const unchecked = denyNames || askNames ? call.shell?.unresolved[0] : undefined;
    if (unchecked !== undefined && denyNames)
      return {
        action: "deny",
        reason: `the command has a part keel cannot check statically (${unchecked}), and deny rules exist for ${tool.name}, so it is refused (failing closed)`,
      };
    const asked = first(this.ask, call);
    if (asked) return { ...decision(asked, "ask"), ...(unchecked !== undefined ? { strict: true } : {}), ...(control ? { control: true } : {}) };
    if (unchecked !== undefined && askNames)
      return {
        action: "ask",
        strict: true,
        reason: `the command has a part keel cannot check statically (${unchecked}), and ask rules exist for ${tool.name}; only an explicit answer approves it (--yes does not)`,
      };
    // A write that can widen what keel runs or allows (once the workspace is trusted) is approved
    // by a person, or --yes: never by an allow rule, which a model could otherwise use to grant itself more.
    if (control)
      return {
        action: "ask",
        control: true,
        reason: `${control.file} is ${control.what}: a change to it can widen what keel runs or allows in this workspace, so allow rules do not approve it (a person does, or --yes)`,
      };
    const allowed = firstAllow(this.allow, call, alias);
    if (allowed) return decision(allowed, "allow");
    for (const r of tool.risk) {
      if (r !== "read") return { action: "ask", reason: `tools with risk ${tool.risk.filter((x) => x !== "read").join(", ")} ask by default` };
    }
    return READ_ONLY_ALLOWED;
  }

  /** The hidden path (see the constructor) that `abs` lies in, as written or where it really leads; undefined when none. Never throws. */
  hides(abs: string): string | undefined {
    if (!this.hidden.length) return undefined;
    const real = realTarget(abs);
    return this.hidden.find((h) => inside(relative(h, abs)) || inside(relative(h, real)));
  }

  /**
   * The first deny rule with a path specifier that names one of `toolNames` and matches `relPath`
   * (relative to the boundary, already resolved), or undefined. glob and grep use it to skip files
   * a rule such as `read_file(.env)` denies when their walk reaches them. Never throws.
   */
  deniesPath(toolNames: readonly string[], relPath: string): string | undefined {
    for (const rule of this.deny) if (rule.pathMatch !== undefined && toolNames.some((n) => rule.name(n)) && rule.pathMatch(relPath)) return rule.text;
    return undefined;
  }
}

/** The decision for a read-only tool no rule names (shared: decisions are never modified). */
const READ_ONLY_ALLOWED: PermissionDecision = Object.freeze({ action: "allow", reason: "read-only tools are allowed by default" });

function decision(rule: CompiledRule, action: PermissionDecision["action"]): PermissionDecision {
  const closed = rule.unsupported ? ` (${rule.unsupported}, so the rule holds for every call it could name, failing closed; rewrite it)` : "";
  return { action, rule: rule.text, reason: `${action} rule "${rule.text}" matched${closed}` };
}

/** One call being decided: its names, argument, and (for shell tools, parsed on first use) its commands. */
class Call {
  private parsed: ShellCall | undefined;

  constructor(
    readonly calledAs: string,
    readonly resolved: string | undefined,
    readonly tool: ToolDefinition,
    /** The argument; for path tools the path as written, relative to `root`. */
    readonly arg: string | undefined,
    private readonly root: string,
    private readonly parser: ShellParser | undefined,
  ) {}

  private real: string | undefined;

  /** For path tools: where `arg` really leads, relative to the root (see `resolvedPath`); resolved on first use, i.e. only when a rule has a path specifier. */
  get resolvedArg(): string | undefined {
    if (this.arg === undefined) return undefined;
    return (this.real ??= resolvedPath(this.root, this.arg));
  }

  /** The parsed shell command, for tools whose permission key is a command line. */
  get shell(): ShellCall | undefined {
    if (this.tool.permissionKey !== "command" || this.arg === undefined) return undefined;
    return (this.parsed ??= new ShellCall(this.arg, this.parser));
  }

  /** Whether the rule's tool-name glob names this call (called name or resolved tool). */
  names(rule: CompiledRule): boolean {
    return rule.name(this.calledAs) || (this.resolved !== undefined && rule.name(this.resolved));
  }
}

/** The first deny or ask rule matching the call. */
function first(rules: CompiledRule[], call: Call): CompiledRule | undefined {
  for (const rule of rules) if (call.names(rule) && restricts(rule, call)) return rule;
  return undefined;
}

/** Whether a deny/ask rule's specifier covers the call: for shell commands, any part of it. */
function restricts(rule: CompiledRule, call: Call): boolean {
  if (rule.spec === undefined) return true;
  if (call.arg === undefined) return false;
  // Deny and ask rules match the path after resolution, and as written too (a rule naming a link still holds).
  if (call.tool.permissionMatch === "path") return rule.pathMatch!(call.resolvedArg!) || rule.pathMatch!(call.arg);
  if (rule.textMatch!.test(call.arg)) return true;
  return call.shell?.anyCommand((text) => rule.textMatch!.test(text)) ?? false;
}

/** The first allow rule for the executing tool, or naming this alias exactly from a level at least as trusted as the alias. */
function firstAllow(rules: CompiledRule[], call: Call, alias: AliasInfo | undefined): CompiledRule | undefined {
  const viaAlias = call.resolved !== undefined;
  for (const rule of rules) {
    const names = rule.name(call.tool.name) || (viaAlias && rule.exactName === call.calledAs && (rule.level === "user" || alias?.level === "workspace"));
    if (names && permits(rule, call)) return rule;
  }
  return undefined;
}

/** Whether an allow rule's specifier covers the whole call: for shell commands, only a single static simple command it matches. */
function permits(rule: CompiledRule, call: Call): boolean {
  if (rule.spec === undefined) return true;
  if (call.arg === undefined) return false;
  // Allow rules match only where the path really leads: a symlink under src/ does not make its target src/.
  if (call.tool.permissionMatch === "path") return rule.pathMatch!(call.resolvedArg!);
  const shell = call.shell;
  if (!shell) return rule.textMatch!.test(call.arg);
  return shell.allowedBy(rule.spec, (text) => rule.textMatch!.test(text));
}

function argumentOf(tool: ToolDefinition, input: unknown, cwd: string, root: string): string | undefined {
  if (!tool.permissionKey || input === null || typeof input !== "object") return undefined;
  const value = (input as Record<string, unknown>)[tool.permissionKey];
  if (typeof value !== "string") return undefined;
  if (tool.permissionMatch !== "path") return value;
  const rel = relative(root, resolve(cwd, value));
  return rel === "" ? "." : rel;
}

/**
 * Where the path `rel` (relative to `root`) really leads: its deepest existing ancestor's real
 * path plus the rest, relative to the real root (`src/settings → ../.env` is `.env`), when that
 * stays inside the root; otherwise `rel` as written (confinement refuses it anyway).
 */
function resolvedPath(root: string, rel: string): string {
  const abs = resolve(root, rel);
  const real = realTarget(abs);
  if (real === abs) return rel;
  let out = relative(root, real);
  if (!inside(out)) out = relative(realOrSelf(root), real);
  return inside(out) ? out || "." : rel;
}

/** True for a relative path that does not climb out. */
function inside(rel: string): boolean {
  return rel === "" || (rel !== ".." && !rel.startsWith(".." + sep) && !isAbsolute(rel));
}
