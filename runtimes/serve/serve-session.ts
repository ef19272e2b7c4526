import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { MODEL_APPROVAL_STOP, sinkWithEmit, type EventSink, type Host, type RunContext } from "../../core/index.js";
import { elicitApprover } from "./elicit-approver.js";
import { forwardElicitor } from "./forward-elicitor.js";
import { observationResult, type ServedCallResult } from "./observation-result.js";
import { approvalHint } from "./approval-hint.js";
import { promptText, servedPrompts } from "./served-prompts.js";
import { listResources, readResource } from "./served-resources.js";
import type { ServeHub } from "./serve-hub.js";
import { unservedToolMessage } from "./unserved-tool.js";

/** The origin every call from a client of `keel mcp serve` carries (recorded in `tool_intent` events). */
export const SERVE_ORIGIN = "mcp-serve";

/** What a client without elicitation (its model) reads about a call that needs approval: the decision is the user's; how to allow it goes to stderr. */
const CLIENT_APPROVAL = `This MCP client cannot answer keel's approval prompts (it does not support elicitation), and keel mcp serve never approves on its own. ${MODEL_APPROVAL_STOP}`;

type Sdk = typeof import("@modelcontextprotocol/sdk/server/index.js") & typeof import("@modelcontextprotocol/sdk/types.js");

/** Loads the SDK parts a session needs (once per command; the CLI loads none of it otherwise). */
export async function loadServerSdk(): Promise<Sdk> {
  const [server, types] = await Promise.all([import("@modelcontextprotocol/sdk/server/index.js"), import("@modelcontextprotocol/sdk/types.js")]);
  return { ...server, ...types };
}

/**
 * One MCP session (one connected client): an SDK `Server` answering tools, resources and prompts
 * from the hub's live host. Every tool call goes through `runToolIntent` with origin `mcp-serve`;
 * an `ask` becomes a form elicitation when the client supports it (else an `isError` result naming
 * the rule to add), and an upstream MCP server's elicitation during the call goes to that client
 * too; the client's cancellation aborts the call's signal, and its progress token asks
 * upstream MCP tools for progress, which is passed on as `notifications/progress`.
 */
export function createServeSession(sdk: Sdk, hub: ServeHub): Server {
  const server = new sdk.Server(
    { name: "keel", version: hub.settings.version },
    {
      capabilities: { tools: { listChanged: true }, resources: {}, prompts: { listChanged: true } },
      instructions:
        "keel's tools: built-ins, runtimes, plugin tools, workflows (workflow__NAME) and upstream MCP servers. Every call runs through keel's permission pipeline (blocks, hooks, deny rules, approvals).",
    },
  );
  // "Allow for this session" answers, per client session.
  const sessionAllow = new Set<string>();
  const runContext = (host: Host, extra: RequestExtra): RunContext => {
    // `elicitation: {}` (or with `form`) accepts forms; a client that declares only `url` does not.
    const elicitation = server.getClientCapabilities()?.elicitation as { form?: object; url?: object } | undefined;
    const elicits = elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
    const token = extra._meta?.progressToken;
    return {
      origin: SERVE_ORIGIN,
      signal: extra.signal,
      sessionAllow,
      // The client also answers what upstream MCP servers ask during its calls.
      ...(elicits ? { approver: elicitApprover(server), elicit: forwardElicitor(server, extra.requestId) } : {}),
      ...(token !== undefined ? { progress: true, events: forwardProgress(host.events, token, extra.sendNotification) } : {}),
    };
  };

  // Resources and prompts reach tools too (`mcp_read_resource`, a command's shell lines and `@file`s):
  // only those `--tools` serves, so a client cannot get past the filter through them.
  const servedOnly = (host: Host, extra: RequestExtra): RunContext => ({ ...runContext(host, extra), isVisible: hub.settings.served });

  server.setRequestHandler(sdk.ListToolsRequestSchema, async () => ({
    tools: hub.tools().map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations })),
  }));

  server.setRequestHandler(sdk.CallToolRequestSchema, async (request, extra): Promise<ServedCallResult> => {
    const tool = hub.tool(request.params.name);
    // An unknown tool is a protocol error (-32602), as the MCP spec has it; its message says why, as the agent's observation would.
    if (!tool) {
      const { served, globs } = hub.settings;
      const servedNames = hub.tools().map((t) => t.name);
      throw invalidParams(sdk, unservedToolMessage(request.params.name, { host: hub.live.host, served, globs, servedNames }));
    }
    // A served workflow's prompt steps and prompt commands get the served tools only, as prompts/get's do.
    const bound = hub.settings.bound;
    const obs = await hub.live.use((host) =>
      host.runTool(tool.intent(request.params.arguments ?? {}), { ...runContext(host, extra), ...(bound ? { toolBound: bound } : {}) }),
    );
    if (obs.code !== "approval_required") return observationResult(obs);
    // How to allow such calls (a rule to add, `keel trust`) is the user's to act on: on stderr, which the client keeps as
    // the server's log; the result, which the client's model reads, says only that the decision is the user's.
    hub.settings.notice(`keel mcp serve: ${obs.tool} was not run. ${approvalHint(obs)}`);
    const cut = obs.content.indexOf("Nothing was executed.");
    return observationResult({ ...obs, content: cut < 0 ? obs.content : obs.content.slice(0, cut + "Nothing was executed.".length) }, CLIENT_APPROVAL);
  });

  server.setRequestHandler(sdk.ListResourcesRequestSchema, async (_request, extra) =>
    hub.live.use(async (host) => ({ resources: await listResources(host, servedOnly(host, extra)) })),
  );

  server.setRequestHandler(sdk.ReadResourceRequestSchema, async (request, extra) => {
    const read = await hub.live.use((host) => readResource(host, request.params.uri, servedOnly(host, extra)));
    if ("error" in read) throw invalidParams(sdk, read.error);
    return { contents: [read] };
  });

  server.setRequestHandler(sdk.ListPromptsRequestSchema, async () => ({ prompts: servedPrompts(hub.live.host) }));

  server.setRequestHandler(sdk.GetPromptRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    const made = await hub.live.use((host) => promptText(host, name, args, servedOnly(host, extra)));
    if ("error" in made) throw invalidParams(sdk, made.error);
    return { messages: [{ role: "user" as const, content: { type: "text" as const, text: made.text } }] };
  });

  hub.add(server);
  server.onclose = () => hub.remove(server);
  return server;
}

/**
 * The JSON-RPC error -32602 with `message` as its message. Not the SDK's McpError: its message starts
 * "MCP error -32602: ", which is what the SDK sends, and a client's McpError prefixes that again.
 */
function invalidParams(sdk: Sdk, message: string): Error {
  return Object.assign(new Error(message), { code: sdk.ErrorCode.InvalidParams });
}

/** A progress notification to the client. */
interface ProgressNotification {
  method: "notifications/progress";
  params: { progressToken: string | number; progress: number; total?: number; message?: string };
}

/** What a request handler receives from the SDK that a call uses. */
interface RequestExtra {
  signal: AbortSignal;
  requestId: string | number;
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: ProgressNotification) => Promise<void>;
}

/** The host's event sink, also sending each `mcp_progress` event of the call to the client as `notifications/progress`. */
function forwardProgress(events: EventSink, progressToken: string | number, send: RequestExtra["sendNotification"]): EventSink {
  return sinkWithEmit(events, (event) => {
    events.emit(event);
    if (event.type === "mcp_progress")
      send({
        method: "notifications/progress",
        params: {
          progressToken,
          progress: event.progress,
          ...(event.total !== undefined ? { total: event.total } : {}),
          ...(event.message ? { message: event.message } : {}),
        },
      }).catch(() => undefined);
  });
}
