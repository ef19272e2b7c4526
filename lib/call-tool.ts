import type { CallElicitor, Host, Observation, ToolRow } from "../core/index.js";
import { toolRows } from "../core/index.js";
import { toApprover, type ApproverLike } from "./approver.js";
import { checkCallToolOptions } from "./embed-options.js";

/** Options of one `callTool`. */
export interface CallToolOptions {
  /** Aborts the call (it ends with `cancelled`). */
  signal?: AbortSignal;
  /** Approver for this call (default: the host's). */
  approver?: ApproverLike;
  /** Approve an `ask` for this call (deny rules still win). */
  yes?: boolean;
  /** Id recorded in the call's events (default: generated). */
  callId?: string;
  /** Directory relative paths resolve against (default: the host's active directory). */
  cwd?: string;
  /** Answers what an upstream MCP server asks (form elicitations) during this call; default: config `mcp.elicitation`. */
  elicit?: CallElicitor;
}

/** Every tool the host offers (built-in, runtime, plugin, MCP), as `keel tools --json` lists them, with blocks resolved. Never throws. */
export function listTools(host: Host): ToolRow[] {
  return toolRows(host);
}

/**
 * Calls one tool through the whole pipeline (lookup, validation, hooks, permission, execution,
 * truncation, events) with origin `embed`, as `keel call` does. Never throws: failures are
 * observations with `ok: false` and a `code`; only a program's mistakes reject, with a `UsageError`:
 * options of the wrong type (e.g. `yes: "false"`), a closed host. `host.close()` cancels the call
 * (`cancelled`) and waits for it to end.
 */
export async function callTool(host: Host, name: string, input: unknown, options: CallToolOptions = {}): Promise<Observation> {
  checkCallToolOptions(options);
  // Cancelled by `options.signal` or by `host.close()`, which waits for the call to end.
  return host.whileOpen(options.signal, (signal) =>
    host.runTool(
      { tool: name, input, ...(options.callId ? { callId: options.callId } : {}) },
      {
        origin: "embed",
        signal,
        approver: toApprover(options.approver),
        ...(options.yes === undefined ? {} : { yes: options.yes }),
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        ...(options.elicit === undefined ? {} : { elicit: options.elicit }),
      },
    ),
  );
}
