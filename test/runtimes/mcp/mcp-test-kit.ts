import { execa, type ResultPromise } from "execa";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const nm = (p: string) => fileURLToPath(new URL(`../../../node_modules/${p}`, import.meta.url));

/** Entry scripts of the real servers (run with `node`, so no shell shims are involved). */
export const EVERYTHING = nm("@modelcontextprotocol/server-everything/dist/index.js");
export const FILESYSTEM = nm("@modelcontextprotocol/server-filesystem/dist/index.js");
export const MEMORY = nm("@modelcontextprotocol/server-memory/dist/index.js");
/** The raw-stdio fault server (`node fault-server.mjs <mode>`). */
export const FAULT = fileURLToPath(new URL("./fixtures/fault-server.mjs", import.meta.url));

/** A stdio server entry running `node script ...args`. */
export function nodeServer(script: string, args: string[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [script, ...args], ...extra };
}

/** A temp workspace with `.mcp.json` holding these servers. */
export function mcpWorkspace(servers: Record<string, unknown>, files: Record<string, string | object> = {}): TempWorkspace {
  return makeWorkspace({ ".mcp.json": { mcpServers: servers }, ...files });
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Waits until `fn` returns truthy (polling every 25 ms); `ms` is a safety net, never the thing a test asserts. */
export async function waitFor<T>(fn: () => T | Promise<T>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("waitFor timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * The pid a fixture wrote to `file`, once the file holds one: a file is created before its content
 * is written, so "exists" alone may read as "" (Number("") is 0, and signal 0 to pid 0 reaches the
 * whole process group: alive forever).
 */
export async function pidIn(ws: { exists(p: string): boolean; read(p: string): string }, file: string): Promise<number> {
  return waitFor(() => {
    const pid = ws.exists(file) ? Number(ws.read(file)) : NaN;
    return Number.isInteger(pid) && pid > 0 ? pid : 0;
  });
}

/** True when a process with this pid is alive (a pid that is not a positive integer is a test bug: it throws). */
export function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`alive(${pid}): not a process id (read a pid file before its content was written?)`);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * server-everything serving `mode` on a free port of 127.0.0.1 (streamable HTTP at `/mcp`, or the legacy SSE transport),
 * once it says it is listening and answers; the caller kills `child`. The waits are safety nets only.
 */
export async function startEverythingHttp(mode: "streamableHttp" | "sse"): Promise<{ port: number; child: ResultPromise }> {
  const port = await freePort();
  const child = execa(process.execPath, [EVERYTHING, mode], { env: { PORT: String(port) }, reject: false, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  await waitFor(() => /listening|running/i.test(stderr));
  const probe = mode === "sse" ? "/message" : "/mcp";
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}${probe}`, { method: "HEAD" }).catch(() => undefined)) !== undefined);
  return { port, child };
}
