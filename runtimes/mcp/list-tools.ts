import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { linkedSignal, type LinkedSignal } from "../../core/index.js";
import { paginate } from "./paginate.js";
import type { McpToolInfo } from "./tool-cache.js";
import { toolFields } from "./tool-info.js";

type SdkTypes = typeof import("@modelcontextprotocol/sdk/types.js");

/**
 * Lists every tool of a server, following `nextCursor`, one tool at a time: a tool whose
 * definition the SDK's schema rejects is kept instead of failing the whole list (and with it the
 * server) — with `schemaProblem` saying why when its input schema is at fault (no `type: "object"`,
 * a malformed `required`); malformed optional fields are left out. Only an entry without a string
 * `name` is dropped (counted in `dropped`). The SDK's `client.listTools` is not used: it resets its output-schema validators on
 * every page and compiles them with its own draft-07 ajv, which logs to the console; keel validates
 * `structuredContent` itself (server-tools.ts). `options` may be a function giving each page's own. Throws what the request throws.
 */
export async function listAllTools(
  client: Client,
  types: SdkTypes,
  options: RequestOptions | (() => RequestOptions),
): Promise<{ tools: McpToolInfo[]; dropped: number }> {
  let dropped = 0;
  const tools = await paginate(async (cursor) => {
    const opts = typeof options === "function" ? options() : options;
    const r = (await client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, types.ResultSchema, opts)) as {
      tools?: unknown;
      nextCursor?: unknown;
    };
    const items: McpToolInfo[] = [];
    for (const raw of Array.isArray(r.tools) ? r.tools : []) {
      const info = toolInfo(raw, types);
      if (info) items.push(info);
      else dropped++;
    }
    return { items, nextCursor: typeof r.nextCursor === "string" ? r.nextCursor : undefined };
  });
  return { tools, dropped };
}

/**
 * listAllTools with every page within `timeoutMs` in all (each request too): a server handing out
 * cursor after cursor, each page just inside the timeout, fails the listing instead of holding
 * keel for hours. Throws what the request throws, or an Error saying the pages did not all arrive.
 */
export async function listAllToolsWithin(
  client: Client,
  types: SdkTypes,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{ tools: McpToolInfo[]; dropped: number }> {
  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(new Error(`tools/list timed out after ${timeoutMs} ms`)), timeoutMs);
  timer.unref();
  // A signal per page: the SDK leaves an abort listener on each request's signal, so one shared by
  // hundreds of pages piles them up (and Node warns of a leak past 10). A linked plain signal, not
  // `AbortSignal.any`: Node keeps one of those for good once the SDK's listener is on it (a start,
  // a restart, a list_changed each left a closed client behind).
  let page: LinkedSignal | undefined;
  try {
    return await listAllTools(client, types, () => {
      page?.unlink();
      page = linkedSignal([signal, budget.signal]);
      return { signal: page.signal, timeout: timeoutMs };
    });
  } catch (error) {
    if (!budget.signal.aborted || signal?.aborted) throw error;
    throw new Error(`tools/list timed out: its pages did not all arrive within ${timeoutMs} ms`, { cause: error });
  } finally {
    clearTimeout(timer);
    page?.unlink();
  }
}

function toolInfo(raw: unknown, types: SdkTypes): McpToolInfo | undefined {
  const info = toolFields(raw);
  if (!info) return undefined;
  const parsed = types.ToolSchema.safeParse(raw);
  if (!parsed.success) info.schemaProblem = inputSchemaIssues(parsed.error);
  return info;
}

/** The schema issues about `inputSchema` (others — a bad title, annotations — are dropped with those fields above). */
function inputSchemaIssues(error: unknown): string | undefined {
  const issues = (error as { issues?: { path?: PropertyKey[]; message?: string }[] }).issues?.filter((i) => i.path?.[0] === "inputSchema");
  if (!issues?.length) return undefined;
  return issues
    .slice(0, 3)
    .map((i) => `${(i.path ?? []).map(String).join(".") || "tool"}: ${i.message ?? "invalid"}`)
    .join("; ");
}
