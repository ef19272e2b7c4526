import { reviewWorkspace, type CliContext } from "../../core/cli/index.js";
import { errorMessage, type Host } from "../../core/index.js";
import { commandEnvCheck } from "./command-env-check.js";
import { configChecks, localConfigChecks, trustCheck } from "./config-checks.js";
import { check, type DoctorCheck } from "./doctor-check.js";
import { mcpChecks } from "./mcp-checks.js";
import { modelCheck } from "./model-check.js";
import { proxyCheck } from "./proxy-check.js";
import { gitCheck, nodeCheck, sandboxCheck } from "./system-checks.js";
import { tempFilesCheck } from "./temp-files-check.js";

/** What `keel doctor --json` prints. */
export interface DoctorReport {
  ok: boolean;
  workspace: string;
  checks: DoctorCheck[];
}

const MARK = { ok: "✓", warn: "!", fail: "✗", skip: "-" } as const;

/**
 * `keel doctor`: checks Node.js, config files and every diagnostic, trust, the proxy in use, the model (one cheap
 * request), MCP servers, the sandbox, the variables commands do not get, git, and temp files a killed keel left, each problem with how to fix it. Exit 1 when a check
 * fails. A config keel cannot load is reported as a failed check (not thrown), with the rest still run.
 */
export async function doctorCommand(ctx: CliContext): Promise<void> {
  const g = ctx.globals();
  const checks: DoctorCheck[] = [nodeCheck()];
  let host: Host | undefined;
  try {
    host = await ctx.openHost({ startServers: true });
  } catch (error) {
    checks.push(check("config", "fail", errorMessage(error), "fix the file it names, then run keel doctor again"));
  }
  let workspace = g.cwd;
  try {
    if (host) {
      workspace = host.workspace.root;
      const [model, mcp, sandbox, git, local, temps] = await Promise.all([
        modelCheck(host, ctx.signal),
        mcpChecks(host, ctx.signal),
        sandboxCheck(host, ctx.signal),
        gitCheck(host.workspace.root, host.env, ctx.signal),
        localConfigChecks(host, ctx.signal),
        tempFilesCheck(host),
      ]);
      const config = [...configChecks(host), ...local];
      const ignored = mcp.some((c) => /^untrusted/.test(c.message)) || config.some((c) => /trust/i.test(c.message));
      // Untrusted: what trust would let it run or allow, read as `keel trust` reviews it (prompt commands' shell lines too, which load lazily).
      const declared = host.trusted ? [] : (await reviewWorkspace(ctx)).items;
      checks.push(...config, trustCheck(host, ignored, declared), proxyCheck(host.env), model, ...mcp, sandbox, commandEnvCheck(host), git, temps);
    } else checks.push(await gitCheck(g.cwd, ctx.io.env, ctx.signal));
  } finally {
    await host?.close();
  }
  const report: DoctorReport = { ok: !checks.some((c) => c.status === "fail"), workspace, checks };
  ctx.print(report, () => render(report));
  if (!report.ok) ctx.setExitCode(1);
}

function render(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((c) => c.name.length));
  const lines = [`keel doctor — ${report.workspace}`];
  for (const c of report.checks) {
    lines.push(`${MARK[c.status]} ${c.name.padEnd(width)}  ${c.message}`);
    if (c.fix && c.status !== "ok") lines.push(`  ${" ".repeat(width)}  fix: ${c.fix}`);
  }
  const failed = report.checks.filter((c) => c.status === "fail").length;
  const warned = report.checks.filter((c) => c.status === "warn").length;
  lines.push(
    failed
      ? `${failed} check${failed === 1 ? "" : "s"} failed, ${warned} warning${warned === 1 ? "" : "s"}.`
      : `All checks passed${warned ? ` (${warned} warning${warned === 1 ? "" : "s"})` : ""}.`,
  );
  return lines.join("\n");
}
