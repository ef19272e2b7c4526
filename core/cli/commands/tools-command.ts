import { fmt } from "../../registry.js";
import type { CliContext } from "../cli-context.js";
import { formatDiagnostic } from "../../diagnostics.js";
import { firstLine, table } from "../format.js";
import { toolRows, type ToolRow } from "../../tool-rows.js";
import { isDeferrable } from "../../agent/tool-menu.js";
import type { Host } from "../../host.js";
import type { ToolSource } from "../../types.js";

export { toolRows, type ToolRow } from "../../tool-rows.js";

/**
 * `keel tools`: the unified registry and the diagnostics gathered while building it; each row says
 * whether a new session here would defer it behind `tool_search` (`deferred`).
 */
export async function toolsCommand(ctx: CliContext): Promise<void> {
  await ctx.withHost(
    async (host) => {
      const tools = await withDeferral(host, toolRows(host));
      const diagnostics = host.diagnostics.items;
      ctx.print({ tools, diagnostics }, () => {
        const rows = tools.map((t) => [
          t.name + (t.blocked ? " (blocked)" : t.deferred ? " (deferred)" : ""),
          t.source.kind === "builtin" ? "builtin" : fmt(t.source as never),
          // no risk of its own (mcp_call_tool: the tool it calls is judged)
          t.aliasOf ? `alias → ${t.aliasOf}` : t.risk.join(",") || "-",
          firstLine(t.description),
        ]);
        let out = table(["NAME", "SOURCE", "RISK", "DESCRIPTION"], rows);
        out += `\n\n${tools.length} tools`;
        const deferred = tools.filter((t) => t.deferred).length;
        if (deferred)
          out += ` (${deferred} MCP and plugin tools deferred: a session offers them through tool_search, as their definitions exceed agent.toolSearchShare of the context window; see \`keel context\`)`;
        const errors = diagnostics.filter((d) => d.severity !== "info").length;
        if (diagnostics.length)
          out += `, ${diagnostics.length} diagnostics (${errors} errors/warnings): run \`keel plugins\` or \`keel tools --json\` for details`;
        // Config problems change what every tool may do: show them here, not only in --json.
        // (The host's notices are on stderr already.)
        const config = diagnostics.filter((d) => d.source === "config" && d.severity !== "info" && !host.configInfo.notices?.includes(d));
        if (config.length) out += "\n\n" + config.map(formatDiagnostic).join("\n");
        return out;
      });
    },
    // A server whose tool list is cached and fresh is listed from the cache; its start is not
    // waited for, and closing the host cancels it. Servers without a fresh cache are started.
    { startServers: "background" },
  );
}

/**
 * Marks the rows a new session would defer (see startToolMenu); a config error leaves them unmarked
 * (the command reports config problems itself). Without MCP or plugin tools nothing can be deferred,
 * and the menu (its settings schema) is not even loaded: `keel tools` in a plain workspace stays light.
 */
async function withDeferral(host: Host, rows: ToolRow[]): Promise<ToolRow[]> {
  if (!rows.some((r) => isDeferrable(r.source as ToolSource))) return rows.map((r) => ({ ...r, deferred: false }));
  let deferred: Set<string>;
  try {
    const { startToolMenu } = await import("../../agent/start-tool-menu.js");
    deferred = startToolMenu(host).menu.deferred;
  } catch {
    return rows;
  }
  return rows.map((r) => ({ ...r, deferred: deferred.has(r.name) }));
}
