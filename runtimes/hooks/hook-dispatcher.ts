import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  changedPinnedFile,
  commandEnv,
  compileRuleFilter,
  enqueueMessage,
  SessionSeals,
  hookEnv,
  MAX_TIMER_MS,
  type EventSink,
  type Host,
  type RuleFilter,
  type ToolDefinition,
  inToolProcess,
  orTrustOnce,
  TRUST_ONCE,
} from "../../core/index.js";
import { hookSandboxed, trustHint, type DeclaredHook } from "./collect-hooks.js";
import { readVerdict, verdictWithSecretsHidden, type HookVerdict } from "./hook-output.js";
import { SANDBOX_CACHE_ENV } from "../mcp/server-sandbox.js";
import { hookKey, type HookLastOutcome, type HookStateStore } from "./hook-state.js";
import { hookPlace, type HookPlace } from "./hook-place.js";
import { runCommandHook } from "./run-command-hook.js";
import { shownCommand } from "./shown-command.js";

/** The tool call a PreToolUse / PostToolUse dispatch is about. */
export interface ToolTarget {
  calledAs: string;
  tool: ToolDefinition;
  /** Claude Code's name for the tool (`Bash`), or the keel name when Claude Code has none. */
  claudeName: string;
  input: unknown;
  cwd: string;
  root: string;
}

/** One dispatch of an event. */
export interface Dispatch {
  event: string;
  /** Fields of the hook's stdin JSON beyond the common ones (`tool_name`, `prompt`, …). */
  fields: Record<string, unknown>;
  cwd: string;
  sessionId?: string;
  /** The session's transcript (events.jsonl), when there is one. */
  transcriptPath?: string;
  events?: EventSink;
  callId?: string;
  /** For tool events: matchers and `if` filters are applied to it. */
  tool?: ToolTarget;
  /** For other events with matchers (SessionStart: `startup`/`resume`): the value matched. */
  matchOn?: string;
  /** Plain stdout of a hook is context for the model (UserPromptSubmit, SessionStart). */
  plainStdoutIsContext?: boolean;
  signal?: AbortSignal;
}

/** One hook's run and what it means. */
export interface HookRunOutcome {
  hook: DeclaredHook;
  verdict: HookVerdict;
}

/**
 * Runs the hooks of one event as Claude Code does: every hook whose matcher (a regex over the
 * Claude Code tool name and keel's names) and `if` filter match runs, in parallel, each with its
 * own timeout, in its folder (`hookPlace`); identical commands of one folder run once. Each run is a `command_hook` event and becomes the
 * hook's last outcome (written by `close`); non-blocking errors are reported to the user. Never throws.
 */
export class HookDispatcher {
  private readonly filters = new Map<string, Promise<RuleFilter>>();
  private readonly matchers = new Map<string, RegExp>();
  /** Last outcomes not yet written to the state file (written once, at shutdown). */
  private readonly lastOutcomes = new Map<string, HookLastOutcome>();
  /** Background (`async`) hooks still running. */
  private readonly background = new Set<Promise<void>>();
  /** Hooks whose changed script the user was already told about (once per hook and host). */
  private readonly changedNoticed = new Set<DeclaredHook>();
  /** Files whose untrusted hooks the user was already told about (once per file and host). */
  private readonly untrustedNoticed = new Set<string>();

  constructor(
    private readonly host: Host,
    private readonly hooks: readonly DeclaredHook[],
    private readonly state: HookStateStore,
    private readonly report: (line: string) => void,
  ) {}

  /** True when some hook of `event` runs here, or would run if the workspace were trusted (the user is told when it would have fired). */
  has(event: string): boolean {
    return this.hooks.some((h) => h.event === event && (h.runs || h.untrusted));
  }

  /** Runs the matching hooks of the event and returns their outcomes (none: an empty list). */
  async dispatch(d: Dispatch): Promise<HookRunOutcome[]> {
    const selected: { h: DeclaredHook; place: HookPlace }[] = [];
    const seen = new Set<string>();
    for (const h of this.hooks) {
      if (h.event !== d.event) continue;
      // A hook that does not run is never matched: its matcher is a regex from an untrusted file, and one
      // that backtracks catastrophically would hang keel. The notice is about the event, not the tool.
      if (!h.runs) {
        if (h.untrusted) this.noticeUntrusted(h);
        continue;
      }
      if (!this.matches(h, d)) continue;
      if (h.if && d.tool && !(await this.passesIf(h.if, d.tool))) continue;
      const place = hookPlace(this.host, h, d.cwd);
      if (this.scriptChanged(h, d.event, place.pins)) continue;
      const key = `${place.dir}\0${h.origin.plugin?.root ?? ""}\0${h.command}`;
      if (seen.has(key)) continue;
      seen.add(key);
      selected.push({ h, place });
    }
    if (!selected.length) return [];
    const stdin = JSON.stringify({
      session_id: d.sessionId ?? "",
      transcript_path: d.transcriptPath ?? "",
      cwd: d.cwd,
      permission_mode: "default",
      hook_event_name: d.event,
      ...d.fields,
    });
    for (const { h, place } of selected.filter((s) => s.h.background)) this.startBackground(h, place, d, stdin);
    const outcomes = await Promise.all(selected.filter((s) => !s.h.background).map(({ h, place }) => this.runOne(h, place, d, stdin)));
    for (const o of outcomes) this.lastOutcomes.set(hookKey(o.hook.origin.file, o.hook.path), o.last);
    return outcomes.map(({ hook, verdict }) => ({ hook, verdict }));
  }

  /** At shutdown: waits for every background hook still running (each is bounded by its timeout), then writes the hooks' last outcomes in one write. */
  async close(): Promise<void> {
    while (this.background.size) await Promise.allSettled([...this.background]);
    if (!this.lastOutcomes.size) return;
    const outcomes = Object.fromEntries(this.lastOutcomes);
    this.lastOutcomes.clear();
    await this.state.record(outcomes);
  }

  /**
   * Starts an `async` hook without waiting for it. When it ends, its `additionalContext` (and, for
   * `asyncRewake`, its exit-2 stderr) is queued for the session as a later message (the agent reads
   * it before its next model call, or on the next resume); its run is an event in the workspace log.
   */
  private startBackground(h: DeclaredHook, place: HookPlace, d: Dispatch, stdin: string): void {
    const run = (async () => {
      const { verdict, last } = await this.runOne(h, place, { ...d, events: undefined }, stdin);
      this.lastOutcomes.set(hookKey(h.origin.file, h.path), last);
      const text = verdict.context ?? (h.background === "rewake" ? verdict.block : undefined);
      const queue =
        d.sessionId && /^[A-Za-z0-9._-]{1,100}$/.test(d.sessionId) ? join(this.host.workspace.stateDir, "sessions", d.sessionId, "queue.json") : undefined;
      if (text && queue && existsSync(dirname(queue)))
        await enqueueMessage(queue, `${d.event} hook \`${shownCommand(h)}\` (ran in the background): ${text}`, {
          id: d.sessionId!,
          seals: new SessionSeals(this.host.workspace),
        });
    })().catch((error: unknown) => this.report(`keel: ${d.event} hook \`${h.command}\` (${h.origin.file}) failed in the background: ${String(error)}`));
    this.background.add(run);
    void run.finally(() => this.background.delete(run));
  }

  private async runOne(h: DeclaredHook, { dir, projectDir }: HookPlace, d: Dispatch, stdin: string): Promise<HookRunOutcome & { last: HookLastOutcome }> {
    const started = performance.now();
    const result = await runCommandHook({
      command: h.command,
      stdin,
      cwd: dir,
      env: this.envFor(h, projectDir),
      timeoutMs: Math.min(h.timeoutSec * 1000, MAX_TIMER_MS),
      signal: d.signal,
      writable: [this.host.workspace.root, dir],
      ...(hookSandboxed(h, this.host)
        ? {
            sandbox: (argv: string[]) =>
              this.host.sandbox.wrapWorkspaceCommand(
                { root: this.host.confinementRoot(d.cwd), cwd: dir, argv },
                `The ${d.event} hook from this workspace`,
                d.signal,
              ),
          }
        : {}),
    });
    const durationMs = Math.round(performance.now() - started);
    // Your hooks run with your environment: what they say (to the model, the user, .keel) hides its credentials as tool results do.
    const redactor = this.host.resultSecrets.redactor();
    const read = readVerdict(result, h.timeoutSec, d.plainStdoutIsContext ?? false);
    const verdict = redactor ? verdictWithSecretsHidden(read, redactor.text) : read;
    (d.events ?? this.host.events).emit({
      type: "command_hook",
      event: d.event,
      command: shownCommand(h),
      source: `${h.origin.file}#${h.path}`,
      exitCode: result.exitCode,
      ...(result.timedOut ? { timedOut: true as const } : {}),
      ...(hookSandboxed(h, this.host) ? { sandboxed: true as const } : {}),
      durationMs,
      decision: verdict.decision,
      ...(d.callId ? { callId: d.callId } : {}),
      ...(d.tool ? { tool: d.tool.calledAs } : {}),
      ...(d.sessionId ? { sessionId: d.sessionId } : {}),
    });
    if (verdict.error) this.report(`keel: ${d.event} hook \`${h.command}\` (${h.origin.file}) ${verdict.error}`);
    const last: HookLastOutcome = {
      event: d.event,
      at: new Date().toISOString(),
      exitCode: result.exitCode,
      decision: verdict.decision,
      durationMs,
      ...(verdict.error ? { error: verdict.error } : {}),
    };
    return { hook: h, verdict, last };
  }

  /**
   * The hook's environment, plus Claude Code's variables: keel's own without the model key (see
   * hookEnv); a sandboxed hook (the workspace's, under `sandbox.workspaceCommands`) gets the bash
   * tool's, scrubbed of secret-looking variables (`commandEnv.pass` lets some through): the sandbox
   * contains code no pin covers (what its scripts import), which must not hold your tokens and the network.
   */
  private envFor(h: DeclaredHook, projectDir: string): Record<string, string | undefined> {
    const sandboxed = hookSandboxed(h, this.host);
    const env = sandboxed ? { ...commandEnv(this.host) } : hookEnv(this.host);
    env.CLAUDE_PROJECT_DIR = projectDir;
    if (h.origin.plugin) env.CLAUDE_PLUGIN_ROOT = h.origin.plugin.root;
    else delete env.CLAUDE_PLUGIN_ROOT;
    // Sandboxed, your home is read-only: `npx`/`uvx` cache in the sandbox's private /tmp, as a sandboxed server's do.
    return sandboxed ? { ...env, ...SANDBOX_CACHE_ENV } : env;
  }

  /**
   * True (telling the user) when a workspace file the hook's command names changed since keel
   * started, so no longer is what `keel trust` approved: a command of this session (a sandboxed one
   * too) could otherwise rewrite a hook's script and have it run unsandboxed by the next tool call.
   */
  private scriptChanged(h: DeclaredHook, event: string, pinRoots: readonly string[]): boolean {
    const pinned = h.pinned;
    const changed = pinned && pinRoots.map((root) => changedPinnedFile(root, pinned)).find((file) => file !== undefined);
    if (!changed) return false;
    if (this.changedNoticed.has(h)) return true;
    this.changedNoticed.add(h);
    this.report(
      `keel: ${event} hook \`${h.command}\` (${h.origin.file}) did not run: ${changed} changed since this workspace was trusted, and hooks are code. Review it, then run \`keel trust\`${orTrustOnce(inToolProcess(this.host.env), TRUST_ONCE.flagOneRun)}.`,
    );
    return true;
  }

  /** Tells the user (once per file) that a hook of the event being dispatched did not run because the workspace is not trusted, or not since the hook changed. */
  private noticeUntrusted(h: DeclaredHook): void {
    if (this.untrustedNoticed.has(h.origin.file)) return;
    this.untrustedNoticed.add(h.origin.file);
    this.report(
      this.host.trusted
        ? `keel: hooks in ${h.origin.file} did not run: ${this.host.trust.unpinned ? "this workspace was trusted before `keel trust` recorded what it approves" : "they were added or changed since this workspace was trusted"}, and hooks are code. Review them, then run \`keel trust\`${orTrustOnce(inToolProcess(this.host.env), TRUST_ONCE.flagOneRun)}.`
        : `keel: hooks in ${h.origin.file} did not run: this workspace is not trusted, and hooks are code. ${trustHint(inToolProcess(this.host.env))}`,
    );
  }

  private matches(h: DeclaredHook, d: Dispatch): boolean {
    const m = h.matcher;
    if (m === undefined || m === "" || m === "*") return true;
    const names = d.tool ? [d.tool.claudeName, d.tool.calledAs, d.tool.tool.name] : d.matchOn !== undefined ? [d.matchOn] : undefined;
    if (!names) return true;
    let re = this.matchers.get(m);
    // As Claude Code reads a matcher: letters, digits, `_` and `|` are a name or a list of names, matched
    // whole (`Edit` is not `MultiEdit`); anything else is a regular expression searched anywhere in the
    // name (`^Edi`, `mcp__.*__delete`), as written — a guard written for Claude Code runs for the same tools.
    if (!re) this.matchers.set(m, (re = /^[A-Za-z0-9_|]+$/.test(m) ? new RegExp(`^(?:${m})$`) : new RegExp(m)));
    return names.some((n) => re.test(n));
  }

  private async passesIf(rule: string, t: ToolTarget): Promise<boolean> {
    let filter = this.filters.get(rule);
    if (!filter) this.filters.set(rule, (filter = compileRuleFilter(rule)));
    return (await filter).matches(t.calledAs, t.tool, t.input, t.cwd, t.root);
  }
}
