import { formatDiagnostic, inside, inToolProcess, realOrSelf, shownPath, type Host } from "../core/index.js";
import { type CliContext, table } from "../core/cli/index.js";
import { RUN_HOOK_EVENTS } from "../manifests/hooks/run-hook-events.js";
import type { PluginRecord } from "./plugin-record.js";

/** What `keel plugins --json` prints. */
export interface PluginsReport {
  plugins: PluginRecord[];
  /** Manifest files that could not load at all. */
  failed: { file: string; level: string; diagnostics: PluginRecord["diagnostics"] }[];
  /** Every diagnostic with source `plugin`, and the trust warnings about a plugin's files (held back since `keel trust`). */
  diagnostics: PluginRecord["diagnostics"];
}

/** `keel plugins [--json]`: every discovered plugin with contributions, skips, notes and diagnostics. Exit 1 when a plugin failed to load or a diagnostic is an error. */
export async function pluginsCommand(ctx: CliContext): Promise<void> {
  await ctx.withHost(async (host) => {
    const service = host.service("plugin-records");
    const plugins = service?.records() ?? [];
    checkVirtualToolSchemas(host, plugins);
    // What trust holds back in a plugin (a code module, a server or hook changed since `keel trust`) is shown with it.
    const held = host.diagnostics.items.filter((d) => d.source === "trust" && d.file !== undefined);
    const roots = plugins.map((p) => realOrSelf(p.root));
    const ofPlugins = held.filter((d) => {
      const file = realOrSelf(d.file!);
      // The innermost plugin holding the file (a plugin may sit inside another's folder).
      let owner: number | undefined;
      roots.forEach((root, i) => {
        if (inside(root, file) && (owner === undefined || root.length > roots[owner]!.length)) owner = i;
      });
      if (owner !== undefined) plugins[owner]!.diagnostics.push(d);
      return owner !== undefined;
    });
    const report: PluginsReport = {
      plugins,
      failed: service?.failed() ?? [],
      diagnostics: [...host.diagnostics.items.filter((d) => d.source === "plugin"), ...ofPlugins],
    };
    ctx.print(report, () => renderPlugins(report, inToolProcess(ctx.io.env)));
    // A plugin that failed to load, or an error diagnostic, is a failure of what was asked for.
    if (report.failed.length || report.diagnostics.some((d) => d.severity === "error")) ctx.setExitCode(1);
  });
}

/**
 * Checks every plugin virtual tool's `parameters` against the JSON Schema meta-schema (no code is
 * generated: compiling waits for the first call) and reports the invalid ones: such a tool is refused
 * by the pipeline until fixed.
 */
function checkVirtualToolSchemas(host: Host, plugins: PluginRecord[]): void {
  for (const tool of host.registry.list()) {
    if (tool.source.kind !== "plugin") continue;
    const problem = host.validator.check(tool.inputSchema);
    if (problem === undefined) continue;
    const record = plugins.find((p) => p.name === tool.source.id);
    const diagnostic = {
      severity: "error" as const,
      source: "plugin",
      file: record?.path,
      path: `virtual_tools.${tool.name}.parameters`,
      message: `Virtual tool ${tool.name} has an invalid parameters schema (${problem}); calls to it are refused until it is fixed.`,
    };
    host.diagnostics.add(diagnostic);
    record?.diagnostics.push(diagnostic);
  }
}

/** Human-readable `keel plugins` output (`marked`: inside a process keel started for a tool, where `--trust` is refused). */
export function renderPlugins(report: PluginsReport, marked = false): string {
  const out: string[] = [];
  if (!report.plugins.length && !report.failed.length)
    return "No plugins found. Drop a plugin.json into .claw-plugin/, .claude-plugin/ or plugins/<name>/, or a Gemini CLI extension into .gemini/extensions/<name>/ (see the README sections Plugins and Gemini CLI extensions).";
  const rows = report.plugins.map((p) => [p.name, p.version ?? "-", p.level, summary(p), p.path]);
  out.push(table(["PLUGIN", "VERSION", "LEVEL", "CONTRIBUTES", "PATH"], rows, 90));
  for (const p of report.plugins) {
    const c = p.contributions;
    const lines: string[] = [];
    for (const a of c.aliases) lines.push(`alias ${a.name} → ${a.baseTool}`);
    for (const v of c.virtualTools) lines.push(`virtual tool ${v}`);
    for (const b of c.blockedTools) lines.push(`blocks ${b}`);
    for (const b of c.blockedCommands) lines.push(`blocks bash commands starting with "${b}"`);
    for (const f of c.contextFiles) lines.push(`context file ${f}`);
    for (const h of c.toolHooks) lines.push(`tool hook ${h.tool}: ${h.kinds.join(", ")}`);
    for (const h of c.lifecycleHooks) lines.push(`hook ${h.hook} (${h.texts} text${h.texts === 1 ? "" : "s"})`);
    for (const s of c.mcpServers)
      lines.push(
        `mcp server ${s}${p.needsTrust ? (marked ? " (needs trust: the user runs keel trust in their own terminal)" : " (needs trust: --trust or keel trust)") : ""}`,
      );
    if (c.workflows) lines.push(`${c.workflows} workflow${c.workflows === 1 ? "" : "s"}${p.needsTrust ? " (shell steps need trust)" : ""}`);
    if (p.code) lines.push(`code module ${p.code.module}${p.code.tools.length ? ` (tools: ${p.code.tools.join(", ")})` : ""}`);
    for (const s of p.skipped) lines.push(`skipped ${s.kind} ${s.name}: ${s.reason}`);
    for (const i of p.informational) lines.push(informationalLine(i));
    for (const d of p.diagnostics.filter((d) => !p.skipped.some((s) => s.reason === d.message))) lines.push(formatDiagnostic(d));
    if (lines.length) out.push("", `${p.name}:`, ...lines.map((l) => `  ${l}`));
  }
  for (const f of report.failed) {
    out.push("", `not loaded: ${shownPath(f.file)}`);
    for (const d of f.diagnostics) out.push(`  ${formatDiagnostic(d)}`);
  }
  const errors = report.diagnostics.filter((d) => d.severity === "error").length;
  out.push(
    "",
    `${report.plugins.length} plugin${report.plugins.length === 1 ? "" : "s"} loaded, ${report.failed.length} not loaded, ${errors} error diagnostic${errors === 1 ? "" : "s"}`,
  );
  return out.join("\n");
}

function summary(p: PluginRecord): string {
  const c = p.contributions;
  const parts: [number, string][] = [
    [c.aliases.length, "alias"],
    [c.virtualTools.length, "virtual tool"],
    [c.blockedTools.length + c.blockedCommands.length, "block"],
    [c.contextFiles.length, "context file"],
    [c.toolHooks.length, "tool hook"],
    [c.lifecycleHooks.length, "hook"],
    [c.mcpServers.length, "mcp server"],
    [c.workflows, "workflow"],
    [p.code ? 1 : 0, "code module"],
  ];
  const text = parts
    .filter(([n]) => n > 0)
    .map(([n, w]) => `${n} ${w}${n === 1 ? "" : w.endsWith("s") ? "es" : "s"}`)
    .join(", ");
  return text || (p.informational.length ? `${p.informational.length} informational` : "nothing");
}

/** How `keel plugins` shows what a Claude Code plugin carries besides plugin.json. */
function informationalLine(i: { kind: string; name: string }): string {
  if (i.kind === "skill") return `skill ${i.name} (the skill tool loads it)`;
  if (i.kind === "command") return `command ${i.name} (keel run "${i.name} …", or keel workflow run)`;
  if (i.kind === "agent") return `agent ${i.name} (a delegate_agent type)`;
  if (i.kind === "hook-event")
    return RUN_HOOK_EVENTS.has(i.name) ? `hook ${i.name} (keel runs it: see keel hooks)` : `hook ${i.name} (not run by keel yet: keel hooks lists it)`;
  return `info: ${i.kind} ${i.name} (not run by keel yet)`;
}
