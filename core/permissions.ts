import { relative, resolve } from "node:path";
import type { TrustLevel } from "./config/config-sources.js";
import { controlWriteOf, type ControlWrite } from "./control-files.js";
import { PermissionCall, permissionArgument, staysInside } from "./permission-call.js";
import { compileRule, firstAllowing, firstRestricting, type AliasInfo, type CompiledRule, type RuleGlob } from "./permission-rule.js";
import { pathKey } from "./name-key.js";
import { protectedDirOf } from "./protected-paths.js";
import { realTarget } from "./real-path.js";
import type { ShellParser } from "./shell/shell-analysis.js";
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
  /** How the user could change the outcome (a setting that widens): for the user's own command line only, never for a model (see run-tool-intent). */
  userHint?: string;
}

/** Permission rules as written in config. */
export interface PermissionRules {
  allow?: string[];
  ask?: string[];
  deny?: string[];
}

/**
 * Decides allow / ask / deny for a call. Writes into `.git/` and `.keel/` are denied first, whatever
 * the rules say; a write to a control file (core/control-files.ts) asks, whatever allow rules say. Deny beats ask beats allow; with no matching rule, tools whose risk is only `read`
 * are allowed and everything else asks. Deny and ask rules match the called name and the resolved
 * tool name, so aliases cannot dodge them. Names cannot borrow permissions: an allow rule matches
 * the tool that actually executes, or an alias only when it names that alias exactly and comes
 * from the alias's plugin's own level (a glob such as `task_*` never allows an alias of bash called
 * `task_list2`; your `deploy` never allows a repository's alias `deploy` of bash).
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
  private hiddenKeyList: readonly string[] | undefined;
  private keptKeyList: readonly string[] | undefined;

  /** The hidden paths (see the constructor), found once. */
  private get hidden(): readonly string[] {
    return (this.hiddenList ??= this.hiddenPaths());
  }

  /** The hidden paths as `pathKey`s, in the same order. */
  private get hiddenKeys(): readonly string[] {
    return (this.hiddenKeyList ??= this.hidden.map(pathKey));
  }

  /**
   * `allowLevels`: who wrote each allow rule (default: the user). `hiddenPaths`: real paths of files and
   * folders no path tool may touch, whatever the rules say (keel's own secrets and your credential
   * stores, when they lie inside the workspace: see `Host`); asked for on the first path check
   * (finding them resolves a few dozen paths; a command that checks none never does). `userLevel`: your
   * user-level folder (`$KEEL_HOME`), which no tool writes into, whatever the rules say.
   */
  constructor(
    rules: PermissionRules = {},
    allowLevels: ReadonlyMap<string, readonly TrustLevel[]> = new Map(),
    private readonly hiddenPaths: () => readonly string[] = () => [],
    private readonly userLevel?: string,
  ) {
    const names = new Map<string, RuleGlob>();
    this.deny = (rules.deny ?? []).map((r) => compileRule(r, "deny", names));
    this.ask = (rules.ask ?? []).map((r) => compileRule(r, "ask", names));
    this.allow = (rules.allow ?? []).map((r) => compileRule(r, "allow", names, allowLevels.get(r) ?? ["user"]));
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
    const arg = permissionArgument(tool, input, cwd, root);
    const secret = this.hidden.length && arg !== undefined && tool.permissionMatch === "path" ? this.hides(resolve(root, arg)) : undefined;
    if (secret)
      return {
        action: "deny",
        reason: `"${arg}" is inside ${secret}, which holds keel's tokens or your credentials: no tool reads or writes there, whatever allow rules or --yes say`,
        userHint: 'set "sandbox": {"credentials": "visible"} to let tools see your credential stores',
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
      if (this.userLevel !== undefined && this.inUserLevel(abs))
        return {
          action: "deny",
          reason: `"${arg}" is inside $KEEL_HOME (${this.userLevel}), your user-level folder: keel takes its config, plugins, skills, commands, agents and trust records as yours (and runs them unsandboxed), so tool writes there are always refused, whatever allow rules or --yes say: changing them is the user's to do, outside keel`,
        };
      control = controlWriteOf(root, abs, tool, input);
    }
    if (control === undefined && tool.controlWrite) control = ownControlWrite(tool, input);
    const call = new PermissionCall(calledAs, resolved, tool, arg, root, this.parser);
    const denied = firstRestricting(this.deny, call);
    if (denied) return decision(denied, "deny");
    const denyNames = this.deny.some((r) => call.names(r));
    const askNames = this.ask.some((r) => call.names(r));
    const unchecked = denyNames || askNames ? call.shell?.unresolved[0] : undefined;
    if (unchecked !== undefined && denyNames)
      return {
        action: "deny",
        reason: `the command has a part keel cannot check statically (${unchecked}), and deny rules exist for ${tool.name}, so it is refused (failing closed)`,
      };
    const asked = firstRestricting(this.ask, call);
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
    const allowed = firstAllowing(this.allow, call, alias);
    if (allowed) return decision(allowed, "allow");
    for (const r of tool.risk) {
      if (r !== "read") return { action: "ask", reason: `tools with risk ${tool.risk.filter((x) => x !== "read").join(", ")} ask by default` };
    }
    return READ_ONLY_ALLOWED;
  }

  /** True when `abs`, as written or where it really leads, lies in the user-level folder (compared as a folding volume would: see pathKey). */
  private inUserLevel(abs: string): boolean {
    this.keptKeyList ??= [...new Set([this.userLevel!, realTarget(this.userLevel!)])].map(pathKey);
    const paths = [pathKey(abs), pathKey(realTarget(abs))];
    return this.keptKeyList.some((k) => paths.some((p) => staysInside(relative(k, p))));
  }

  /**
   * The hidden path (see the constructor) that `abs` lies in, as written or where it really leads, and
   * under any name a volume that folds names gives it (`.SSH` is `.ssh` on macOS: see `pathKey`);
   * undefined when none. Never throws.
   */
  hides(abs: string): string | undefined {
    if (!this.hidden.length) return undefined;
    const paths = [pathKey(abs), pathKey(realTarget(abs))];
    const at = this.hiddenKeys.findIndex((h) => paths.some((p) => staysInside(relative(h, p))));
    return at < 0 ? undefined : this.hidden[at];
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

/** What a tool's own `controlWrite` says the call changes; a check that throws counts as a control write (failing closed). */
function ownControlWrite(tool: ToolDefinition, input: unknown): ControlWrite | undefined {
  try {
    return tool.controlWrite!(input);
  } catch {
    return { file: tool.name, what: "a change to keel's settings that keel could not judge" };
  }
}

function decision(rule: CompiledRule, action: PermissionDecision["action"]): PermissionDecision {
  const closed = rule.unsupported ? ` (${rule.unsupported}, so the rule holds for every call it could name, failing closed; rewrite it)` : "";
  return { action, rule: rule.text, reason: `${action} rule "${rule.text}" matched${closed}` };
}
