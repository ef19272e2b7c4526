import { table, type CliContext } from "../../core/cli/index.js";
import type { Diagnostic } from "../../core/index.js";
import { hookSandboxed } from "./collect-hooks.js";
import { hookKey, type HookLastOutcome } from "./hook-state.js";

/** One hook as `keel hooks --json` prints it. */
export interface HookListing {
  event: string;
  matcher?: string;
  if?: string;
  command: string;
  timeoutSec: number;
  /** File and JSON path it was declared at. */
  file: string;
  path: string;
  /** The folder a workspace hook runs in, where the relative paths of its command resolve; null for yours (the session's folder). */
  cwd: string | null;
  level: "user" | "workspace";
  plugin?: string;
  runs: boolean;
  /** True when it runs under the OS sandbox (a workspace hook while `sandbox.workspaceCommands` is on). */
  sandboxed: boolean;
  /** Why it does not run. */
  why?: string;
  /** Its last run in this workspace, when it ran. */
  last?: HookLastOutcome;
}

/** What `keel hooks --json` prints. */
export interface HooksReport {
  trusted: boolean;
  hooks: HookListing[];
  /** Problems found while reading hooks (source `hooks`). */
  diagnostics: Diagnostic[];
}

/** `keel hooks [--json]`: every declared hook, whether it runs here (and why not), and its last outcome. Exit 0. */
export async function hooksCommand(ctx: CliContext): Promise<void> {
  await ctx.withHost(async (host) => {
    const service = host.service("claude-hooks");
    const last = (await service?.state()?.read()) ?? {};
    const report: HooksReport = {
      trusted: host.trusted,
      hooks: (service?.hooks() ?? []).map((h) => ({
        event: h.event,
        ...(h.matcher !== undefined ? { matcher: h.matcher } : {}),
        ...(h.if ? { if: h.if } : {}),
        command: h.command,
        timeoutSec: h.timeoutSec,
        file: h.origin.file,
        path: h.path,
        cwd: h.origin.dir ?? null,
        level: h.origin.level,
        ...(h.origin.plugin ? { plugin: h.origin.plugin.name } : {}),
        runs: h.runs,
        sandboxed: hookSandboxed(h, host),
        ...(h.why ? { why: h.why } : {}),
        ...(last[hookKey(h.origin.file, h.path)] ? { last: last[hookKey(h.origin.file, h.path)] } : {}),
      })),
      diagnostics: host.diagnostics.items.filter((d) => d.source === "hooks"),
    };
    ctx.print(report, () => renderHooks(report));
  });
}

/** Human-readable `keel hooks` output. */
export function renderHooks(report: HooksReport): string {
  if (!report.hooks.length && !report.diagnostics.length)
    return 'No Claude Code hooks found. Add "hooks" to .claude/settings.json, keel config or a plugin\'s hooks/hooks.json (see the README section Hooks).';
  const rows = report.hooks.map((h) => [
    h.event,
    h.matcher ?? "*",
    h.command,
    `${h.level}${h.plugin ? ` (plugin ${h.plugin})` : ""}`,
    h.runs ? (h.sandboxed ? "yes, sandboxed" : "yes") : `no: ${h.why}`,
    h.last ? `${h.last.decision}, exit ${h.last.exitCode ?? "-"}, ${h.last.at}${h.last.error ? ` (${h.last.error})` : ""}` : "never ran here",
  ]);
  const out = [table(["EVENT", "MATCHER", "COMMAND", "LEVEL", "RUNS", "LAST OUTCOME"], rows, 70)];
  out.push("", "Sources:", ...report.hooks.map((h) => `  ${h.event} ${h.command}: ${h.file} ${h.path} (runs in ${h.cwd ?? "the session's folder"})`));
  for (const d of report.diagnostics) out.push(`${d.severity}: ${d.file ?? ""}${d.path ? ` ${d.path}` : ""}: ${d.message}`);
  return out.join("\n");
}
