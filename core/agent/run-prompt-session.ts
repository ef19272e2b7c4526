import { existsSync } from "node:fs";
import { errorMessage } from "../errors.js";
import type { Host } from "../host.js";
import { recordedModelSpec, requireModelSpec } from "../model/model-spec.js";
import type { AgentRunRequest, AgentRunResult } from "../services.js";
import { sessionPaths } from "../session/session-paths.js";
import { readSessionMeta, readSessionState } from "../session/session-store.js";
import type { AgentSessions } from "./agent-sessions.js";
import { withinParent } from "./delegate-agent-tool.js";

/**
 * Runs one prompt in a new session (workflow `prompt` steps, prompt commands' model turns): a child
 * of the calling session when there is one — with no tool that session may not use, and within what
 * it has left of its budgets. Never throws: failures come back with `ok: false`.
 */
export async function runPromptSession(sessions: AgentSessions, host: Host, request: AgentRunRequest): Promise<AgentRunResult> {
  try {
    const parentSessionId =
      request.parentSessionId && existsSync(sessionPaths(host.workspace.stateDir, request.parentSessionId).meta) ? request.parentSessionId : undefined;
    const recorded = parentSessionId ? (await readSessionMeta(host.workspace.stateDir, parentSessionId)).model : undefined;
    // the run is a sub-agent of the calling session: it never gets a tool that session may not use (a workflow's
    // prompt step or prompt command called by a sub-agent limited to read_file and workflow_run gets no bash)
    const callerSubset = parentSessionId
      ? (sessions.active.get(parentSessionId)?.state ?? (await readSessionState(host.workspace.stateDir, parentSessionId))).toolSubset
      : undefined;
    const modelSpec = recorded && recordedModelSpec(recorded, host.config, host.env, host.workspace.root);
    const out = await sessions.start({
      prompt: request.prompt,
      cwd: request.cwd,
      maxSteps: request.maxSteps,
      tools: withinParent(request.tools, callerSubset),
      signal: request.signal,
      parentSessionId,
      yes: request.yes,
      readByModel: request.readByModel,
      // a run that names its model uses it on the configured endpoint (resolved here: `model` would become
      // this invocation's --model for later sessions); otherwise it inherits its parent's
      modelSpec: request.model ? requireModelSpec(host.config, request.model, host.env, host.workspace.root) : modelSpec,
    });
    return { ok: out.ok, text: out.message ?? out.text, sessionId: out.sessionId, reason: out.reason };
  } catch (error) {
    return { ok: false, text: errorMessage(error), sessionId: "", reason: "error" };
  }
}
