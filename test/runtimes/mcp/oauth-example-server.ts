import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";

/** The runnable example (examples/oauth-mcp-server.mjs): an OAuth-protected MCP server on 127.0.0.1. */
export const OAUTH_EXAMPLE = fileURLToPath(new URL("../../../examples/oauth-mcp-server.mjs", import.meta.url));

/** A running example server: its MCP URL, what it received, and how to stop it. */
export interface OAuthExampleServer {
  url: string;
  /** The same server over the legacy SSE transport (`<url>/sse`). */
  sseUrl: string;
  /** Every request the server received (method, path, headers, body) and its counters. */
  log(): Promise<{
    requests: { method: string; path: string; headers: Record<string, string>; body: string }[];
    stats: { refreshes: number; clientCredentials: number };
  }>;
  stop(): Promise<void>;
}

/** Starts the example server (`--token-ttl`, `--machine-client ID:SECRET`, `--tool-scope NAME=SCOPE` as in the script) and waits until it listens. */
export async function startOAuthExample(args: string[] = []): Promise<OAuthExampleServer> {
  const child: ResultPromise = execa(process.execPath, [OAUTH_EXAMPLE, "--port", "0", ...args], { reject: false, buffer: false });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const m = /listening at (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void child.then((r) => reject(new Error(`example server exited (${r.exitCode}): ${out}`)));
  });
  return {
    url,
    sseUrl: `${url}/sse`,
    log: async () => (await fetch(new URL("/_log", url))).json() as never,
    stop: async () => {
      child.kill();
      await child;
    },
  };
}

/**
 * An `onStderr` for `runKeel` that plays the browser: follows the first authorization URL keel
 * prints (the redirect lands on keel's callback), after `delayMs` (a user taking their time).
 */
export function browserPlayer(delayMs = 0): { onStderr(text: string): void; visited: string[] } {
  const visited: string[] = [];
  return {
    visited,
    onStderr(text) {
      const m = /^\s+(http:\/\/\S+\/authorize\S*)$/m.exec(text);
      if (m && !visited.includes(m[1]!)) {
        visited.push(m[1]!);
        setTimeout(() => void fetch(m[1]!).catch(() => undefined), delayMs);
      }
    },
  };
}
