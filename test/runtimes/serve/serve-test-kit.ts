import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { execa, type ResultPromise } from "execa";
import type { KeelEvent } from "../../../core/types.js";
import { KEEL_BIN } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { waitFor } from "../mcp/mcp-test-kit.js";

/** The upstream MCP server fixture (progress and cancellation tools). */
export const UPSTREAM = fileURLToPath(new URL("./fixtures/upstream-server.mjs", import.meta.url));

/** The `talk` plugin: one virtual tool `say` with a required `topic`. */
export const TALK_PLUGIN = {
  name: "talk",
  virtual_tools: [
    {
      name: "say",
      description: "Says it",
      response_template: "Plugin says {topic}",
      parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
    },
  ],
};

/** A workspace with the `talk` plugin, a workflow `greet` (parameter `who`), a prompt command `hello` and the upstream server `up`. */
export function serveWorkspace(files: Record<string, string | object> = {}): TempWorkspace {
  const ws = makeWorkspace({
    "plugins/talk/plugin.json": TALK_PLUGIN,
    ".claw-workflows.json": {
      workflows: [
        {
          name: "greet",
          description: "Greets someone",
          parameters: { type: "object", properties: { who: { type: "string", description: "whom to greet" } }, required: ["who"] },
          prompt: "Say hello to {who}.",
          steps: [{ id: "say", tool: "say", input: { topic: "hello {who}" } }],
        },
      ],
    },
    ".claude/commands/hello.md": "---\ndescription: Says hello\nargument-hint: NAME\n---\nHello $ARGUMENTS, from a command.\n",
    ...files,
  });
  // The upstream server is told where to write its marker files (servers do not inherit keel's environment).
  if (!(".mcp.json" in files)) ws.write(".mcp.json", upstreamManifest(ws));
  return ws;
}

/** `.mcp.json` with the upstream server `up` (its marker files under the workspace), plus `extra` top-level fields. */
export function upstreamManifest(ws: TempWorkspace, extra: Record<string, unknown> = {}): object {
  return { mcpServers: { up: { command: process.execPath, args: [UPSTREAM, ws.path("started.txt"), ws.path("cancelled.txt")] } }, ...extra };
}

/** Environment of a served workspace. */
export function serveEnv(ws: TempWorkspace): NodeJS.ProcessEnv {
  return { ...ws.env };
}

/** Options of `connectStdio`. */
export interface StdioOptions {
  /** Extra arguments after `mcp serve`. */
  args?: string[];
  /** Global arguments before `mcp` (default `--trust`). */
  globals?: string[];
  /** Answers elicitations (the client then declares the elicitation capability). */
  elicit?: (message: string) => ElicitResult;
}

/** An SDK client connected to `keel mcp serve` over stdio (a child process), with its stderr. */
export async function connectStdio(ws: TempWorkspace, opts: StdioOptions = {}): Promise<{ client: Client; stderr: () => string }> {
  let stderr = "";
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [KEEL_BIN, "--cwd", ws.root, ...(opts.globals ?? ["--trust"]), "mcp", "serve", ...(opts.args ?? [])],
    env: serveEnv(ws) as Record<string, string>,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "serve-test", version: "1.0.0" }, { capabilities: opts.elicit ? { elicitation: { form: {} } } : {} });
  if (opts.elicit) {
    const answer = opts.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (req) => answer(req.params.message));
  }
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** A `keel mcp serve --http` child process and where it listens. */
export interface HttpServe {
  url: string;
  /** The token it printed (undefined with --no-auth or KEEL_SERVE_TOKEN). */
  token?: string;
  stderr: () => string;
  stop(): Promise<void>;
}

/** Starts `keel --trust mcp serve --http ...args` and waits for the line naming its URL. */
export async function startHttp(ws: TempWorkspace, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<HttpServe> {
  const child: ResultPromise = execa(process.execPath, [KEEL_BIN, "--cwd", ws.root, "--trust", "mcp", "serve", "--http", ...args], {
    env: { ...serveEnv(ws), ...env },
    extendEnv: false,
    reject: false,
    stdin: "ignore",
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = (await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`keel mcp serve exited: ${stderr}`);
    return /at (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
  }))!;
  // The token line follows the address line (a separate write): wait for it when one is printed.
  const printsToken = !args.includes("--no-auth") && env.KEEL_SERVE_TOKEN === undefined;
  const token = printsToken ? await waitFor(() => /Authorization: Bearer (\S+)/.exec(stderr)?.[1]) : undefined;
  return {
    url,
    token,
    stderr: () => stderr,
    async stop() {
      child.kill("SIGTERM");
      await child;
    },
  };
}

/** The workspace's event log. */
export function readEvents(ws: TempWorkspace): KeelEvent[] {
  if (!ws.exists(".keel/events.jsonl")) return [];
  return readFileSync(ws.path(".keel/events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as KeelEvent);
}
