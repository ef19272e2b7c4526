import { relative } from "node:path";
import { type CliContext, firstLine, table, terminalText, ttyApprover } from "../../core/cli/index.js";
import { type Approver, formatDiagnostic, type Host, inToolProcess, UsageError } from "../../core/index.js";
import { describeWorkflow, needsTrustNote } from "./describe-workflow.js";
import { parseArgPairs } from "./parse-args.js";
import { createProgress, formatDuration, type LiveProgress } from "./workflow-progress.js";
import { RECORD_NOT_WRITTEN, type WorkflowService } from "./workflow-service.js";

function serviceOf(host: Host): WorkflowService {
  const service = host.service("workflows");
  if (!service) throw new UsageError("The workflow runtime is not loaded in this build of keel.");
  return service;
}

function workflowDiagnostics(host: Host) {
  return host.diagnostics.items.filter((d) => d.source === "workflow");
}

/** `keel workflow list [QUERY]`: name, steps, source, description, which need trust; workflow diagnostics after the table. */
export async function workflowListCommand(ctx: CliContext, query?: string): Promise<void> {
  await ctx.withHost(async (host) => {
    const service = serviceOf(host);
    const workflows = service.list(query);
    const diagnostics = workflowDiagnostics(host);
    // A workflow its file defines wrongly did not load: that fails the listing, as a plugin that did not load fails `keel plugins`.
    const broken = diagnostics.some((d) => d.severity === "error");
    const rows = workflows.map((w) => ({
      name: w.name,
      description: w.description ?? null,
      steps: w.steps.length,
      source: w.origin.file,
      plugin: w.origin.plugin ?? null,
      parameters: w.parameters ?? null,
      worktree: w.worktree ?? null,
      needsTrust: service.needsTrust(w),
    }));
    ctx.print({ workflows: rows, diagnostics }, () => {
      let out = workflows.length
        ? table(
            ["NAME", "STEPS", "SOURCE", "DESCRIPTION"],
            workflows.map((w) => [
              w.name,
              String(w.steps.length),
              w.origin.plugin ? `plugin:${w.origin.plugin}` : relative(host.workspace.root, w.origin.file),
              firstLine(w.description ?? ""),
            ]),
          )
        : query !== undefined && service.list().length
          ? `No workflow matches "${query}". Run \`keel workflow list\` to see them all.`
          : broken
            ? "No workflow could be loaded: fix the problems below."
            : "No workflows found. Add .claw-workflows.json or .keel/workflows/NAME.json (see the README section Workflows and worktrees).";
      const untrusted = workflows.filter((w) => service.needsTrust(w)).map((w) => w.name);
      if (untrusted.length) out += `\n\nNeed trust to run: ${untrusted.join(", ")} (${needsTrustNote(inToolProcess(host.env))}).`;
      return diagnostics.length ? `${out}\n\n${diagnostics.map(formatDiagnostic).join("\n")}` : out;
    });
    if (broken) ctx.setExitCode(1);
  });
}

/** `keel workflow show NAME`: the workflow, and whether it needs the workspace trusted to run. */
export async function workflowShowCommand(ctx: CliContext, name: string): Promise<void> {
  await ctx.withHost(async (host) => {
    const service = serviceOf(host);
    const wf = service.require(name);
    const { origin, ...rest } = wf;
    const needsTrust = service.needsTrust(wf);
    ctx.print({ ...rest, origin, needsTrust }, () => describeWorkflow(wf, needsTrust, inToolProcess(host.env)));
  });
}

/** `keel workflow run NAME [--arg k=v]... [--worktree [onFinish]]`: live progress, then the summary; exit 1 unless it succeeded. */
export async function workflowRunCommand(
  ctx: CliContext,
  name: string,
  opts: { arg: string[]; worktree?: true | "keep" | "merge" | "discard" },
): Promise<void> {
  const globals = ctx.globals();
  let progress: LiveProgress | undefined;
  const tty = ctx.io.interactive && !globals.json;
  const prompt = ctx.io.interactive && !globals.yes ? ttyApprover(ctx.io.stdin, ctx.io.stderr, ctx.interrupt) : undefined;
  const approver: Approver | undefined = prompt && {
    async approve(request, signal) {
      progress?.pause();
      try {
        return await prompt.approve(request, signal);
      } finally {
        progress?.resume();
      }
    },
  };
  await ctx.withHost(
    async (host) => {
      const service = serviceOf(host);
      const wf = service.require(name);
      const args = parseArgPairs(opts.arg ?? [], wf.parameters);
      if (!globals.json) {
        progress = createProgress(ctx.io.stdout, tty);
        ctx.io.stdout.write(`Running workflow ${terminalText(wf.name)} (${wf.steps.length} step${wf.steps.length === 1 ? "" : "s"})\n`);
      }
      const worktree = opts.worktree === undefined ? undefined : opts.worktree === true ? (wf.worktree?.onFinish ?? "keep") : opts.worktree;
      let record;
      try {
        record = await service.run(wf.name, {
          args,
          signal: ctx.signal,
          yes: globals.yes,
          approver,
          origin: "cli",
          worktree,
          progress,
          sessionAllow: new Set(),
        });
      } finally {
        progress?.close();
      }
      ctx.print(record, () => summary(host, record, service.runsFile));
      if (record.status !== "succeeded") ctx.setExitCode(1);
    },
    // Steps may call any tool: every server starts, in the background behind a fresh tool cache (a call joins its start).
    { approver, startServers: "background" },
  );
}

function summary(host: Host, record: Awaited<ReturnType<WorkflowService["run"]>>, runsFile: string): string {
  const lines: string[] = [];
  if (record.prompt) lines.push("", "Prompt:", `  ${record.prompt.split("\n").join("\n  ")}`);
  if (record.worktree)
    lines.push("", `Worktree ${record.worktree.name} (onFinish ${record.worktree.onFinish}): ${record.worktree.result?.message ?? "not finished"}`);
  if (record.warnings.length) lines.push("", "Warnings:", ...record.warnings.map((w) => `  - ${w}`));
  const mark = record.status === "succeeded" ? "✓" : record.status === "cancelled" ? "⊘" : "✗";
  lines.push("", `${mark} Workflow ${record.workflow} ${record.status} ${formatDuration(record.durationMs)}${record.error ? `: ${record.error}` : ""}`);
  if (record.warnings.some((w) => w.startsWith(RECORD_NOT_WRITTEN))) lines.push(`Run ${record.id} was not recorded (see the warning above).`);
  else lines.push(`Run ${record.id} recorded in ${relative(host.workspace.root, runsFile) || runsFile} (see \`keel workflow runs\`).`);
  return lines.join("\n");
}

/** `keel workflow runs [--limit N]`: newest first. */
export async function workflowRunsCommand(ctx: CliContext, opts: { limit: number }): Promise<void> {
  if (!Number.isInteger(opts.limit) || opts.limit < 1) throw new UsageError("--limit must be a positive integer.");
  await ctx.withHost(async (host) => {
    const runs = await serviceOf(host).runs(opts.limit);
    ctx.print({ runs }, () => {
      if (!runs.length) return "No workflow runs recorded yet. Run one with `keel workflow run NAME`.";
      const rows = runs.map((r) => {
        const ok = r.steps.filter((s) => s.status === "succeeded").length;
        return [
          r.id,
          r.workflow,
          r.status,
          r.startedAt.replace("T", " ").slice(0, 19),
          formatDuration(r.durationMs).slice(1, -1),
          `${ok}/${r.steps.length}`,
          firstLine(r.error ?? ""),
        ];
      });
      return table(["RUN", "WORKFLOW", "STATUS", "STARTED", "DURATION", "STEPS OK", "ERROR"], rows);
    });
  });
}
