import type { ChatRequestBody } from "./openai-server.js";
import { makeWorkspace, type TempWorkspace } from "./temp-workspace.js";

/** The ids of the assistant's calls and of the tool results in a request, in order. */
export function idsOf(body: ChatRequestBody): { calls: string[]; results: string[] } {
  return {
    calls: body.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)),
    results: body.messages.flatMap((m) => (m.role === "tool" && m.tool_call_id !== undefined ? [m.tool_call_id] : [])),
  };
}

/**
 * A git workspace with `notes.txt` whose user config points keel at `baseUrl` as model `model` (key `KEEL_TEST_KEY`,
 * no retries): what a provider's call-id rules are tested in. Returns the workspace (clean it up) and the env to run in.
 */
export function modelWorkspace(model: string, baseUrl: string): { ws: TempWorkspace; root: string; env: NodeJS.ProcessEnv } {
  const ws = makeWorkspace({ "notes.txt": "the notes say hello\n" }, { git: true });
  ws.writeUserConfig({ model: { name: model, baseUrl, apiKeyEnv: "KEEL_TEST_KEY", maxRetries: 0 } });
  return { ws, root: ws.root, env: { ...ws.env, KEEL_TEST_KEY: "k" } };
}
