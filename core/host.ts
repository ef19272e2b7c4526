import { inToolProcess, orTrustOnce, TRUST_ONCE } from "./trust-hint.js";
import { join, resolve } from "node:path";
import { ArtifactStore } from "./artifacts.js";
import type { KeelConfig } from "./config/config-schema.js";
import { loadConfig, type LoadedConfig } from "./config/load-config.js";
import { Diagnostics, formatDiagnostic } from "./diagnostics.js";
import { errorMessage } from "./errors.js";
import { DIGEST_BUDGET_BYTES, namedWorkspaceFiles, type DigestBudget } from "./file-digest.js";
import { JsonlEventSink } from "./events.js";
import { PersistentBaselineStore } from "./file-baselines.js";
import { createHooks, type KeelHooks } from "./hooks.js";
import { PermissionPolicy } from "./permissions.js";
import { ToolRegistry } from "./registry.js";
import { SANDBOX_OFF, sandboxSettings } from "./sandbox/sandbox-config.js";
import { hiddenPaths } from "./sandbox/hidden-paths.js";
import { SandboxRunner } from "./sandbox/sandbox-runner.js";
import { keelHomeSecrets } from "./keel-home-secrets.js";
import { CallIdSource } from "./call-id.js";
import { ResultSecrets } from "./result-secrets.js";
import { type ClosableFetch, proxyFetch } from "./net/proxy-fetch.js";
import { runToolIntent } from "./run-tool-intent.js";
import { ensureStateDir, stateGitignoreProblem } from "./state/state-dir.js";
import { storageMessage, storageProblem } from "./state/storage-problem.js";
import { REVIEW_TRUST, trustApproves, workspaceTrust, type TrustItem, type WorkspaceTrust } from "./trust.js";
import { DEFAULT_OUTPUT_BUDGET } from "./truncate.js";
import type { EventSink, Observation, RunContext, ToolIntent } from "./types.js";
import { confinementRoot, inside } from "./tools/confine-path.js";
import type { KeelServiceName, KeelServices } from "./services.js";
import { SchemaValidator } from "./validation.js";
import { UserWaitClock } from "./user-wait-clock.js";
import { withProgramSettings } from "./config/program-settings.js";
import { OpenWork } from "./open-work.js";
import type { HostOptions, KeelPlugin } from "./host-options.js";
import { resolveWorkspace, type Workspace } from "./workspace.js";

export type { HostOptions, KeelPlugin } from "./host-options.js";

/**
 * The host: owns the registry, the frozen hooks, the workspace, config, permissions and
 * the event sink. No module-level state: everything hangs off this instance.
 */
export class Host {
  readonly hooks: KeelHooks = createHooks();
  readonly diagnostics = new Diagnostics();
  readonly registry = new ToolRegistry(this.diagnostics);
  readonly validator = new SchemaValidator((message) => this.diagnostics.warn("validation", `JSON Schema: ${message}`));
  readonly events: EventSink;
  readonly artifacts: ArtifactStore;
  readonly fileBaselines: PersistentBaselineStore;
  readonly permissions: PermissionPolicy;
  /** Runs shell commands (bash, workflow `run` steps, sandboxed MCP servers, and the workspace's hooks and stdio servers under `sandbox.workspaceCommands`) under the configured sandbox. */
  readonly sandbox: SandboxRunner;
  /** Time spent waiting for the user (elicitations); tool timeouts leave it out. */
  readonly userWait = new UserWaitClock();
  /** Ids of tool calls made without one. */
  readonly callIds = new CallIdSource();
  /** The secrets hidden from every tool result (your environment's credentials; runtimes add theirs). */
  readonly resultSecrets: ResultSecrets;
  /**
   * The one `fetch` for every outgoing request of this host (the model endpoint, remote MCP servers, OAuth): the
   * environment's HTTPS_PROXY/HTTP_PROXY/NO_PROXY honoured (proxyFetch). Only the environment sets a proxy, never a
   * workspace file.
   */
  readonly fetch: ClosableFetch;
  /** Directory tools operate in; the worktree runtime moves it into the active worktree. */
  activeDir: string;
  /**
   * Set when the active directory cannot be used (the active worktree's directory vanished): tool
   * calls in it fail with this message (`precondition_failed`) instead of silently running elsewhere.
   */
  activeDirError?: string;
  /** What the workspace declared that needs its trust to run (see `approves`), in the order met. */
  readonly trustItems: TrustItem[] = [];
  /** What is left of this host's budget for hashing the files trust pins name. */
  private readonly digestBudget: DigestBudget = { bytes: DIGEST_BUDGET_BYTES };
  private readonly services = new Map<string, unknown>();
  private readonly applied: string[] = [];
  /** `close()` under way or done. */
  private closing?: Promise<void>;
  /** An embedding program's turns and calls in flight: cancelled and waited for by `close()`. */
  private readonly work = new OpenWork();
  private lastRoot?: { cwd: string; root: string };

  private constructor(
    readonly workspace: Workspace,
    readonly config: KeelConfig,
    readonly configInfo: Omit<LoadedConfig, "config">,
    /** How far the workspace is trusted (see `approves`). */
    readonly trust: WorkspaceTrust,
    readonly options: HostOptions,
  ) {
    this.activeDir = workspace.cwd;
    const sandbox = config.sandbox === undefined ? SANDBOX_OFF : sandboxSettings(config.sandbox);
    const env = options.env ?? process.env;
    // keel's secrets and your credential stores, where the workspace holds them (run in ~, a dotfiles
    // repository): what the sandbox hides from commands, file tools do not reach either. A store that
    // is the workspace itself (a repository at ~/.password-store) is what you chose to work on.
    const hidden = () =>
      hiddenPaths({ ...sandbox, denyRead: [] }, workspace.root, keelHomeSecrets(workspace.keelHome), env).filter(
        (p) => p !== workspace.root && inside(workspace.root, p),
      );
    // $KEEL_HOME speaks for you (its config, plugins, skills, trust records): no tool writes there, where the workspace holds it (run in ~) or lies in it.
    this.permissions = new PermissionPolicy(config.permissions, configInfo.allowLevels, hidden, resolve(workspace.keelHome));
    this.sandbox = new SandboxRunner(sandbox, env, keelHomeSecrets(workspace.keelHome), workspace.root, workspace.keelHome);
    this.resultSecrets = new ResultSecrets(env);
    this.fetch = proxyFetch(env);
    this.events = options.events ?? new JsonlEventSink(join(workspace.stateDir, "events.jsonl"), () => this.ensureStateDir(), false, options.onEvent);
    this.artifacts = new ArtifactStore(join(workspace.stateDir, "artifacts"), workspace.root, () => this.ensureStateDir());
    this.fileBaselines = new PersistentBaselineStore(workspace.stateDir);
    // The config's widening settings were approved (or held back) while loading: recorded here, with the warning.
    if (configInfo.trustItem) this.approves(configInfo.trustItem);
    for (const d of configInfo.diagnostics) this.diagnostics.add(d);
    // Rules held for your replaced local config files, and widening settings held back since `keel trust`: said as every command starts.
    for (const d of configInfo.notices ?? []) {
      this.diagnostics.add(d);
      options.notice?.(`keel: ${formatDiagnostic(d)}`);
    }
    for (const layer of configInfo.broken)
      this.diagnostics.error("config", `Config file could not be loaded and was skipped: ${layer.error}`, { file: layer.file });
    for (const note of (workspace.notes ?? []).slice(0, 8)) this.diagnostics.warn("workspace", note);
    const gitignore = stateGitignoreProblem(workspace.stateDir);
    if (gitignore) this.diagnostics.warn("state", gitignore, { file: join(workspace.stateDir, ".gitignore") });
  }

  /** Resolves the workspace, loads config and trust. Throws ManifestError on invalid config. */
  static async create(options: HostOptions): Promise<Host> {
    const env = options.env ?? process.env;
    const workspace = resolveWorkspace(options.cwd, env);
    // Trust first: an untrusted workspace's config may only restrict.
    const trust = options.reviewTrust ? REVIEW_TRUST : await workspaceTrust(workspace, options.trust, env);
    const loaded: LoadedConfig = options.config
      ? { config: options.config, layers: [], broken: [], allowLevels: new Map(), diagnostics: [] }
      : // Reviewed for `keel trust`, the config is read as trusted (what trust would apply), not held back as changed since the last one.
        await loadConfig(workspace, trust.trusted, options.reviewTrust ? () => true : (item) => trustApproves(trust, item), trust.unpinned, env);
    const { config, ...info } = withProgramSettings(loaded, options);
    return new Host(workspace, config, info, trust, { ...options, env });
  }

  /** The workspace is trusted (`keel trust`, `--trust`): its config may widen, and what it declares may run once approved (`approves`). */
  get trusted(): boolean {
    return this.trust.trusted;
  }

  /** The workspace's config was merged as trusted: it is trusted and its widening settings are as `keel trust` approved them. */
  get configTrusted(): boolean {
    return this.trust.trusted && (this.configInfo.trustItem === undefined || trustApproves(this.trust, this.configInfo.trustItem));
  }

  /**
   * Whether the workspace may run or apply `item` (an MCP server, command hook or code plugin it
   * declares, its config's widening settings, a skill's or command's `allowed-tools`): it is trusted
   * and the item is as it was when `keel trust` approved it (or `--trust` approves everything). Records the item in `trustItems` for `keel trust`. A trusted workspace's item that
   * was added or changed since gets a warning saying how to approve it.
   */
  approves(item: TrustItem, file?: string): boolean {
    this.trustItems.push(item);
    if (trustApproves(this.trust, item)) return true;
    if (this.trust.trusted && !this.options.reviewTrust)
      this.diagnostics.warn(
        "trust",
        `${item.kind} ${item.name} ${this.trust.unpinned ? "is not approved yet: this workspace was trusted before `keel trust` recorded what it approves, so" : "was added or changed since this workspace was trusted:"} ${item.kind === "config" ? "they are not applied (the workspace's config only restricts)" : "it does not run"} until you review it with \`keel trust\` (which lists what it approves)${orTrustOnce(inToolProcess(this.env), TRUST_ONCE.orFlagOneRun)}.`,
        file ? { file } : {},
      );
    return false;
  }

  /**
   * The workspace files the commands (argv lists) of a trusted workspace's line run
   * (`bash .claude/hooks/lint.sh`, `node server.js`, `./bin/server`, `make`'s Makefile) and the package scripts they
   * run (`npm run lint`: `package.json#scripts.lint`), with their content digests, for the item's trust pin: a script changed since
   * `keel trust` holds its hook or server back too. Empty when the workspace is not trusted or
   * `--trust` approves everything (nothing is read then). `absent` collects what a package manager would read if it were
   * there (`.npmrc`, a nearer package.json), to check as missing before a later run (see `namedWorkspaceFiles`).
   */
  namedFiles(commands: readonly (readonly string[])[], cwd: string, absent?: string[]): [string, string][] {
    // Untrusted: nothing of it runs; `--trust`: everything does. Only a pinned trust (or `keel trust`'s review) needs the digests.
    return this.trust.trusted && this.trust.approved ? namedWorkspaceFiles(commands, cwd, this.workspace.root, this.digestBudget, absent) : [];
  }

  /** Environment the host runs with. */
  get env(): NodeJS.ProcessEnv {
    return this.options.env ?? process.env;
  }

  /** Default output budget in characters (`output.maxChars`). */
  get outputBudget(): number {
    return this.config.output?.maxChars ?? DEFAULT_OUTPUT_BUDGET;
  }

  /** Applies plugins in order (each once, by name). */
  async use(...plugins: KeelPlugin[]): Promise<this> {
    for (const plugin of plugins) {
      if (this.applied.includes(plugin.name)) continue;
      this.applied.push(plugin.name);
      await plugin.apply(this);
    }
    return this;
  }

  /** Names of applied plugins, in order. */
  get plugins(): readonly string[] {
    return this.applied;
  }

  /** Fires `registerTools` so every plugin registers its tools. Call once after `use`. */
  async init(): Promise<this> {
    try {
      await this.hooks.registerTools.promise({ host: this });
    } catch (error) {
      this.diagnostics.error("host", errorMessage(error));
    }
    return this;
  }

  /** Runs one tool intent through the pipeline. Never throws. */
  runTool(intent: ToolIntent, run: RunContext = {}): Promise<Observation> {
    return runToolIntent(this, intent, run);
  }

  /**
   * Runs a program's `work` (a `runAgent` turn, a `callTool` call) with a signal that aborts with
   * `signal` or when the host closes; `close()` waits for it to end. Throws a `UsageError` on a closed host.
   */
  whileOpen<T>(signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.work.run(signal, work);
  }

  /** Shares an API between plugins under a name declared in `KeelServices` (e.g. `mcp`, `tasks`). */
  provide<K extends KeelServiceName>(name: K, service: KeelServices[K]): void {
    this.services.set(name, service);
  }

  /** A service another plugin provided, or undefined; typed by its name. */
  service<K extends KeelServiceName>(name: K): KeelServices[K] | undefined {
    return this.services.get(name) as KeelServices[K] | undefined;
  }

  /** Creates `.keel/` (with `.gitignore`) and optional subfolders; returns the path. */
  ensureStateDir(...sub: string[]): string {
    return ensureStateDir(this.workspace.stateDir, ...sub);
  }

  /** The boundary tool paths must stay inside for a working directory: its managed worktree, else the workspace root. */
  confinementRoot(cwd: string = this.activeDir): string {
    // Pure in `cwd` (the workspace never changes): remember the last answer, every call asks.
    if (this.lastRoot?.cwd !== cwd) this.lastRoot = { cwd, root: confinementRoot(this.workspace.root, this.workspace.stateDir, cwd) };
    return this.lastRoot.root;
  }

  /** Path under `.keel/state/`. Does not create it. */
  statePath(...parts: string[]): string {
    return join(this.workspace.stateDir, "state", ...parts);
  }

  /**
   * Cancels a program's turns and calls still running (`whileOpen`) and waits for them, stops children
   * (shutdown hook), saves baselines, writes pending events (closing the host's own event log). Idempotent: every call resolves
   * when that has ended, a second one made while the first is under way too. Events or baselines a full, read-only or
   * unwritable disk keeps from being written are a warning through `notice`; the only failure it rejects with is an
   * event log keel refuses to write (a link planted at `.keel`: StateError).
   */
  close(): Promise<void> {
    // A second close() (a signal handler's, while the program's own is under way) waits for the same end.
    return (this.closing ??= this.shutDown());
  }

  private async shutDown(): Promise<void> {
    await this.work.close();
    await this.hooks.shutdown.promise({ host: this }).catch((error) => {
      this.events.emit({ type: "hook_error", hook: "shutdown", message: errorMessage(error) });
    });
    await this.fileBaselines.save().catch((error) => {
      this.events.emit({ type: "state_error", message: errorMessage(error) });
      this.options.notice?.(`keel: warning: ${storageMessage(error)} (what this command read is not remembered for a later edit_file)`);
    });
    this.sandbox.close();
    // The proxy's connections (undici keeps idle ones for reuse) end with the host, not a while after it.
    await this.fetch.close();
    // A sink the host made is closed (file and exit handler released); one handed in is only flushed.
    try {
      if (this.options.events === undefined && this.events instanceof JsonlEventSink) this.events.close();
      else this.events.flush();
    } catch (error) {
      // A full or read-only disk: the command's own result stands (a call with side effects never ran unrecorded).
      // Anything else (a link planted at `.keel`) still fails the command.
      if (storageProblem((error as Error).cause ?? error) === undefined) throw error;
      this.options.notice?.(`keel: warning: the last events of this command are not recorded: ${errorMessage(error)}`);
    }
  }
}
