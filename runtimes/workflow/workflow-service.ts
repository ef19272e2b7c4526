import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { didYouMean, type Host, storageMessage, UsageError } from "../../core/index.js";
import { commandPlaces } from "../../manifests/commands/command-places.js";
import type { PromptCommand } from "../../manifests/commands/prompt-command.js";
import { discoverWorkflows, type WorkflowCatalog } from "../../manifests/workflow/discover-workflows.js";
import type { WorkflowDefinition } from "../../manifests/workflow/workflow-schema.js";
import type { WorkflowRunRecord } from "./run-record.js";
import type { WorkflowRunOptions } from "./workflow-runner.js";
import { workflowNeedsTrust } from "./workflow-trust.js";

/** How the warning of a run whose record could not be written to the run history begins. */
export const RECORD_NOT_WRITTEN = "The run record could not be written";

/** The workflow runtime's API, provided as `"workflows"`: the catalog, runs and run history. */
export class WorkflowService {
  private catalog: WorkflowCatalog = { workflows: [], files: [] };
  /** A trusted workspace's Claude commands whose `allowed-tools` `keel trust` approved (their shell lines may run). */
  private approved = new Set<PromptCommand>();

  constructor(private readonly host: Host) {}

  /** `.keel/state/workflow-runs.jsonl`. */
  get runsFile(): string {
    return this.host.statePath("workflow-runs.jsonl");
  }

  /**
   * Discovers workflows (files from cwd up to the root, `.keel/workflows/`, plugins), then prompt
   * commands (Claude Code `.md`, Gemini CLI `.toml`) as one-step workflows; a command whose name a
   * workflow has is skipped, unless it is yours (`$KEEL_HOME`, a user-level plugin) and the workflow
   * the workspace's: then the workflow is. Problems become diagnostics.
   */
  async load(): Promise<void> {
    const handOffs = this.host.service("plugins")?.handOffs() ?? [];
    const ws = this.host.workspace;
    this.catalog = await discoverWorkflows({ cwd: ws.cwd, root: ws.root, stateDir: ws.stateDir, handOffs }, this.host.diagnostics);
    const plugins = handOffs.map((h) => ({ plugin: h.plugin, root: h.root, userLevel: h.userLevel, commands: h.commands ?? [join(h.root, "commands")] }));
    const places = commandPlaces({ cwd: ws.cwd, root: ws.root, keelHome: ws.keelHome, plugins });
    if (!places.some((p) => existsSync(p.dir))) return;
    // the command parsers (YAML, TOML) load only when there is a commands folder
    const [{ loadCommands }, { commandWorkflow }] = await Promise.all([
      import("../../manifests/commands/discover-commands.js"),
      import("../commands/command-workflow.js"),
    ]);
    const loaded = loadCommands(places);
    for (const d of loaded.diagnostics) this.host.diagnostics.add(d);
    const root = this.host.workspace.root;
    for (const cmd of loaded.commands) {
      let taken = this.get(cmd.name);
      if (taken && cmd.level === "user" && !taken.origin.userLevel) {
        // One of your commands is never replaced by a workspace's workflow: the workflow gives way.
        this.catalog.workflows.splice(this.catalog.workflows.indexOf(taken), 1);
        this.host.diagnostics.warn(
          "workflow",
          `Workflow "${taken.name}" defined here is ignored: your command /${cmd.name} (${cmd.file}) has the same name, and a workspace may not replace one of your commands. Rename this one to use both.`,
          { file: taken.origin.file, path: taken.origin.path },
        );
        taken = undefined;
      }
      if (taken) {
        // Never runs: nothing of it to approve (nor to warn about as held).
        this.host.diagnostics.warn(
          "command",
          `Command /${cmd.name} is not available as a workflow: the workflow "${taken.name}" in ${taken.origin.file} has that name.`,
          { file: cmd.file },
        );
        continue;
      }
      if (cmd.level !== "user" && cmd.allowedTools?.length)
        if (this.host.approves({ kind: "command", name: `/${cmd.name} (${relative(root, cmd.file)})`, config: [cmd.name, cmd.allowedTools] }, cmd.file))
          this.approved.add(cmd);
      this.catalog.workflows.push(commandWorkflow(cmd));
    }
  }

  /** True when a workspace command's `allowed-tools` are as `keel trust` approved them. */
  allowedToolsApproved(cmd: PromptCommand): boolean {
    return this.approved.has(cmd);
  }

  /** The prompt command of that name (`/name`), when there is one. */
  command(name: string): PromptCommand | undefined {
    const step = this.get(name)?.steps[0];
    return step?.kind === "command" ? step.command : undefined;
  }

  /** Manifest files that were read. */
  get files(): readonly string[] {
    return this.catalog.files;
  }

  /** Workflows whose name or description contains `query` (case-insensitive), in discovery order. */
  list(query?: string): WorkflowDefinition[] {
    const q = query?.trim().toLowerCase();
    if (!q) return [...this.catalog.workflows];
    return this.catalog.workflows.filter((w) => w.name.toLowerCase().includes(q) || (w.description ?? "").toLowerCase().includes(q));
  }

  /** The workflow of that name (case-insensitive), or undefined. */
  get(name: string): WorkflowDefinition | undefined {
    const needle = name.trim().toLowerCase();
    return this.catalog.workflows.find((w) => w.name.toLowerCase() === needle);
  }

  /** True when the workflow will not run until the workspace is trusted (defined in an untrusted workspace). */
  needsTrust(wf: WorkflowDefinition): boolean {
    return workflowNeedsTrust(this.host, wf);
  }

  /** Like `get`, but throws UsageError listing the known names when there is none. */
  require(name: string): WorkflowDefinition {
    const wf = this.get(name);
    if (wf) return wf;
    const names = this.catalog.workflows.map((w) => w.name);
    // A workflow its file defines wrongly is not loaded: say so, rather than that there is none.
    const broken = this.host.diagnostics.items.filter((d) => d.source === "workflow" && d.severity === "error");
    const known = names.length
      ? `Known workflows: ${names.join(", ")}.`
      : broken.length
        ? "No workflow could be loaded."
        : "No workflows were found: add .claw-workflows.json or .keel/workflows/*.json (see the README section Workflows and worktrees).";
    const notLoaded = broken.length
      ? ` ${broken.length} workflow definition problem(s) kept some from loading (first: ${broken[0]!.file ?? "?"}${broken[0]!.path ? `:${broken[0]!.path}` : ""}: ${broken[0]!.message}); \`keel workflow list\` shows each: fix them and retry.`
      : "";
    throw new UsageError(`Unknown workflow "${name}".${didYouMean(name, names)} ${known}${notLoaded}`);
  }

  /**
   * Runs a workflow by name and appends the record to the run history. The record (returned and kept)
   * shows the secrets keel knows as `***`, as tool results do: an argument such as `--arg token=$GITHUB_TOKEN`
   * is in its arguments, rendered commands and labels, and `.keel/` never holds a secret. Throws UsageError only for an unknown name.
   */
  async run(name: string, opts: WorkflowRunOptions = {}): Promise<WorkflowRunRecord> {
    const wf = this.require(name);
    // The runner and the run history load on the first run (listing tools never needs them).
    const [{ runWorkflow }, { appendRunRecord, redactRunRecord }] = await Promise.all([import("./workflow-runner.js"), import("./run-record.js")]);
    const record = redactRunRecord(await runWorkflow({ host: this.host, lookup: (n) => this.get(n) }, wf, opts), this.host.resultSecrets.redactor());
    try {
      this.host.ensureStateDir("state");
      await appendRunRecord(this.runsFile, record);
    } catch (error) {
      record.warnings.push(`${RECORD_NOT_WRITTEN} to ${this.runsFile}: ${storageMessage(error)}`);
    }
    return record;
  }

  /** The latest `limit` run records, newest first. */
  async runs(limit = 20): Promise<WorkflowRunRecord[]> {
    const { readRunRecords } = await import("./run-record.js");
    const all = await readRunRecords(this.runsFile);
    return all.slice(-Math.max(0, limit)).reverse();
  }
}
