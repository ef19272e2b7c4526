import { waitingCall } from "../agent/waiting-call.js";
import type { Host } from "../host.js";
import { readSessionMeta, readSessionState } from "../session/session-store.js";
import { SessionSeals } from "../session/session-seal.js";
import type { ApprovalRequest } from "../types.js";

/**
 * The call session `id` waits on — it paused where no one could answer (`keel run` without a
 * terminal) — as a request for the chat's inline approval prompt: the call that deciding it runs
 * (a sub-agent's, through `delegate_agent`, named in the reason), with its arguments parsed as the
 * agent parses them when it runs the call. Undefined when the session waits for nothing, or is not
 * yours (the runtime refuses to continue it and says why). Never throws.
 */
export async function waitingApproval(host: Host, id: string): Promise<ApprovalRequest | undefined> {
  try {
    const state = await readSessionState(host.workspace.stateDir, id);
    if (state.status !== "awaiting_approval") return undefined;
    const meta = await readSessionMeta(host.workspace.stateDir, id);
    if (!new SessionSeals(host.workspace).isYours(id, meta.createdAt)) return undefined;
    const waiting = await waitingCall(host.workspace.stateDir, state);
    if (!waiting) return undefined;
    const sub = waiting.subAgent;
    const tool = sub?.tool ?? waiting.call.name;
    const raw = sub?.arguments ?? waiting.call.arguments;
    const resolved = host.registry.resolve(tool)?.tool;
    return {
      tool,
      resolvedTool: resolved?.name ?? tool,
      input: parsed(raw),
      risk: resolved?.risk ?? [],
      reason: `session ${id} paused for your approval of this call in a run that had no terminal to ask on${
        sub ? `; it runs in sub-agent session ${sub.sessionId} (this session's ${waiting.call.name} call waits on it)` : ""
      }`,
    };
  } catch {
    return undefined;
  }
}

/** The arguments as the agent reads them when it runs the call (text that is not JSON is shown as it is: such a call does not run). */
function parsed(raw: string): unknown {
  try {
    return raw.trim() ? JSON.parse(raw) : {};
  } catch {
    return raw;
  }
}
