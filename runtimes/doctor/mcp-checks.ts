import { type Host, inToolProcess, redactSecrets } from "../../core/index.js";
import { MCP_SERVICE } from "../mcp/index.js";
import { hintFor } from "../mcp/mcp-commands.js";
import { check, type DoctorCheck } from "./doctor-check.js";

/**
 * Starts every enabled, trusted MCP server (lazy ones too) and reports each one's state: failed
 * servers fail with a next step, untrusted and login-needing ones warn (a server's own `hint` is
 * shown when it has one). One `mcp` line when none is configured. Never throws.
 */
export async function mcpChecks(host: Host, signal: AbortSignal): Promise<DoctorCheck[]> {
  const manager = host.service(MCP_SERVICE);
  if (!manager || !manager.connections.length) return [check("mcp", "skip", "no MCP servers configured (.mcp.json)")];
  await Promise.all(manager.connections.filter((c) => c.state === "lazy" || c.state === "idle").map((c) => c.start(signal).catch(() => undefined)));
  const byName = new Map(manager.status().map((s) => [s.name, s]));
  return manager.connections.map((conn) => {
    const s = byName.get(conn.name)!;
    const own = (s as { hint?: string }).hint;
    const hint = redactSecrets(own ?? hintFor(conn, s, inToolProcess(host.env)) ?? "", manager.secrets) || undefined;
    const name = `mcp:${s.name}`;
    const where = `(${s.transport}, ${s.source})`;
    if (s.state === "connected") return check(name, "ok", `connected ${where}, ${s.tools} tools`);
    if (s.state === "disabled") return check(name, "ok", `disabled ${where}`);
    if (s.state === "failed")
      return check(name, "fail", `failed ${where}: ${redactSecrets(s.lastError ?? "no error recorded", manager.secrets)}`, hint ?? `keel mcp doctor ${s.name}`);
    return check(name, "warn", `${s.state} ${where}${s.lastError ? `: ${redactSecrets(s.lastError, manager.secrets)}` : ""}`, hint);
  });
}
