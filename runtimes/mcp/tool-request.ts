import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallElicitor, ToolError } from "../../core/index.js";
import type { CallElicitors } from "./call-elicitors.js";
import type { RequestCancel } from "./request-cancel.js";

/** One `tools/call` as the connection's `callTool` prepared it. */
export interface ToolRequest<T> {
  tool: string;
  args: unknown;
  /** Cancels the request at the server (the pipeline's deadline or cancel). */
  cancel: RequestCancel;
  /** The SDK's own timeout (a back-up of the pipeline's deadline). */
  timeout: number;
  onResult: (result: Record<string, unknown>) => T;
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
  /** Who answers the server's elicitations while this call is in flight. */
  elicit?: CallElicitor;
}

/**
 * Sends one `tools/call` on a connected client and hands its result to `onResult` in the same
 * promise step; while it is in flight its elicitor is registered in `calls`. A failure not caused by
 * the cancel is turned into a ToolError by `toToolError`, one turn later (so a crashed server's close
 * handler has marked it first and the error says so); a cancelled request's error is thrown as it is.
 */
export function requestTool<T>(client: Client, calls: CallElicitors, request: ToolRequest<T>, toToolError: (error: unknown) => ToolError): Promise<T> {
  const { cancel } = request;
  const options: RequestOptions = { signal: cancel.asSignal(), timeout: request.timeout };
  // Without a handler the SDK adds no progress token, so the server sends no progress.
  if (request.onProgress) options.onprogress = request.onProgress;
  const call = calls.begin(request.elicit);
  const pending = client.callTool({ name: request.tool, arguments: (request.args ?? {}) as Record<string, unknown> }, undefined, options) as Promise<
    Record<string, unknown>
  >;
  return pending.then(
    (result) => {
      calls.end(call);
      return request.onResult(result);
    },
    async (error) => {
      calls.end(call);
      if (cancel.aborted) throw error;
      await new Promise((r) => setImmediate(r));
      throw toToolError(error);
    },
  );
}
