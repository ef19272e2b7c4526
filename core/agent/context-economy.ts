import { ArtifactStore } from "../artifacts.js";
import type { ChatMessage, ModelToolSpec } from "../model/model-types.js";
import type { ActiveSession } from "./active-session.js";
import { summarizeHistory } from "./compaction-summary.js";
import { fireBeforeCompact } from "./session-hooks.js";

/**
 * Keeps the request within the window: past `pruneAt` of the context window old tool
 * outputs are replaced by summaries (the full text goes to an artifact); past `compactAt`
 * older history becomes a structured continuation. The transcript is untouched.
 * Returns the final estimate.
 */
export async function economize(s: ActiveSession, tools: ModelToolSpec[]): Promise<number> {
  const window = s.model.profile.contextWindow;
  let estimate = s.estimator.request(s.state.messages, tools);
  if (estimate > s.settings.pruneAt * window) {
    const before = estimate;
    const pruned = pruneToolOutputs(s);
    estimate = s.estimator.request(s.state.messages, tools);
    if (pruned) s.emit("context_pruned", { pruned, before, after: estimate, window });
  }
  if (estimate > s.settings.compactAt * window) {
    const before = estimate;
    const removed = await compactHistory(s);
    estimate = s.estimator.request(s.state.messages, tools);
    if (removed) s.emit("context_compacted_tokens", { before, after: estimate, window });
  }
  return estimate;
}

function pruneToolOutputs(s: ActiveSession): number {
  const msgs = s.state.messages;
  // tool outputs of the most recent assistant message are never pruned
  const lastAssistant = findLastIndex(msgs, (m) => m.role === "assistant");
  let count = 0;
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i]!;
    if (m.role !== "tool" || m.pruned) continue;
    if (i > lastAssistant) continue;
    if (m.content.length < 400) continue;
    const artifact = m.artifact ?? writeArtifact(s, m.toolCallId, m.content);
    const firstLine = m.content.split("\n").find((l) => l.trim()) ?? "";
    s.editMessages(i, 1, [
      {
        ...m,
        pruned: true,
        artifact,
        content: `[Output of ${m.name} pruned to save context (${m.content.length} chars). Starts: ${firstLine.slice(0, 160)}… Full text: ${artifact}]`,
      },
    ]);
    count++;
  }
  return count;
}

/** Summarizes the older history into a continuation message (`beforeCompact` fires first); returns how many messages it replaced (0: nothing to compact). */
export async function compactHistory(s: ActiveSession, trigger: "auto" | "manual" = "auto"): Promise<number> {
  const msgs = s.state.messages;
  const system = msgs[0]?.role === "system" ? 1 : 0;
  const cut = chooseCut(msgs, system);
  if (cut <= system) return 0;
  const head = msgs.slice(system, cut);
  await fireBeforeCompact(s, trigger);
  // A retry of the summary call is shown like any other (event and line); its callIndex is the summary call's (-1).
  const result = await summarizeHistory(s.model, head, s.options.signal, (retry) => {
    s.emit("model_retry", { callIndex: -1, ...retry });
    s.events.flush(false);
  });
  // Cancelled while summarising (Ctrl-C): the history stays as it was, not replaced by the heuristic's stand-in.
  if (s.options.signal?.aborted) return 0;
  const content = `Continuation of an earlier conversation that was compacted to fit the context window (${head.length} messages summarized):\n\n${result.summary}`;
  const continuation: ChatMessage = { role: "user", kind: "continuation", content };
  s.editMessages(system, cut - system, [continuation]);
  s.emit("compaction", { method: result.method, removedMessages: head.length, modelError: result.error });
  return head.length;
}

/** Index where the kept tail starts: the last prompt, or the last assistant message when the current turn is long. */
function chooseCut(msgs: readonly ChatMessage[], start: number): number {
  const lastPrompt = findLastIndex(msgs, (m) => m.role === "user" && (m.kind === undefined || m.kind === "prompt" || m.kind === "queued"));
  const lastAssistant = findLastIndex(msgs, (m) => m.role === "assistant");
  let cut = lastPrompt;
  // hooks messages just before the prompt stay with it
  while (cut > start && msgs[cut - 1]?.role === "user" && (msgs[cut - 1] as { kind?: string }).kind === "hooks") cut--;
  if (cut <= start + 1 && lastAssistant > cut) cut = lastAssistant;
  return Math.max(cut, start);
}

function writeArtifact(s: ActiveSession, callId: string, text: string): string {
  return new ArtifactStore(s.paths.artifacts, s.host.workspace.root).write(callId, "full", text, "txt").path;
}

function findLastIndex<T>(items: readonly T[], pred: (x: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (pred(items[i]!)) return i;
  return -1;
}
