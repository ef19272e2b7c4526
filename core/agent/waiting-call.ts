import { readSessionState } from "../session/session-store.js";
import type { PendingCall, SessionState } from "../session/session-types.js";
import { MAX_DELEGATION_DEPTH } from "./tool-menu.js";

/** A sub-agent's call that deciding its paused ancestor decides (see waitingCall). */
export interface SubAgentCall {
  sessionId: string;
  callId: string;
  tool: string;
  arguments: string;
}

/** The call a paused session waits on, and what deciding it runs. */
export interface WaitingCall {
  /** The session's own waiting call. */
  call: PendingCall;
  /**
   * When that call is a `delegate_agent` waiting on its sub-agent: the sub-agent's waiting call
   * (followed down to the deepest sub-agent), which `keel sessions approve|reject` of this session
   * decides and runs. Undefined when the session's own call is what is decided.
   */
  subAgent?: SubAgentCall;
}

/**
 * The call `state` waits on and, through `delegate_agent` calls paused on sub-agents, the call that
 * deciding it really runs, read from the sub-agents' state files (never from a copy the parent
 * keeps). A sub-agent that cannot be read or no longer waits ends the chain. Undefined when nothing
 * waits. Never throws.
 */
export async function waitingCall(stateDir: string, state: SessionState): Promise<WaitingCall | undefined> {
  const call = state.pending?.calls.find((c) => c.status === "awaiting_approval");
  if (!call) return undefined;
  let subAgent: SubAgentCall | undefined;
  let child = call.child;
  for (let hops = 0; child !== undefined && hops < MAX_DELEGATION_DEPTH; hops++) {
    const childState = await readSessionState(stateDir, child).catch(() => undefined);
    const next = childState?.status === "awaiting_approval" ? childState.pending?.calls.find((c) => c.status === "awaiting_approval") : undefined;
    if (!next) break;
    subAgent = { sessionId: child, callId: next.id, tool: next.name, arguments: next.arguments };
    child = next.child;
  }
  return { call, ...(subAgent ? { subAgent } : {}) };
}

/** The call deciding `waiting` runs (`show` renders a tool and its arguments), naming the sub-agent session it runs in. */
export function describeWaiting(waiting: WaitingCall, show: (tool: string, args: string) => string = (t, a) => `${t}(${a})`): string {
  const sub = waiting.subAgent;
  if (!sub) return show(waiting.call.name, waiting.call.arguments);
  return `${show(sub.tool, sub.arguments)} in sub-agent session ${sub.sessionId} (this session's ${waiting.call.name} call ${waiting.call.id} waits on it)`;
}
