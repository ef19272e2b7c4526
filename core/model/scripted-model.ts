import { readFileSync } from "node:fs";
import { UsageError, errorMessage } from "../errors.js";
import { parseJsonText } from "../json-text.js";
import { ModelError } from "./model-error.js";
import type { ModelSpec } from "./model-spec.js";
import type { ModelClient, ModelRequest, ModelResponse } from "./model-types.js";

/** One scripted assistant turn. */
export interface ScriptedTurn {
  text?: string;
  toolCalls?: { id?: string; name: string; arguments?: unknown }[];
  /** Milliseconds to wait before answering (to test cancellation and crashes). */
  delayMs?: number;
  /** Make this call fail with this message. */
  error?: string;
}

/** The `scripted:FILE` format: a list of turns, or `{turns, byPrompt}`. */
export interface ScriptFile {
  turns: ScriptedTurn[];
  /** Turn lists for sessions whose first user prompt contains the key (e.g. sub-agents). */
  byPrompt?: Record<string, ScriptedTurn[]>;
}

/**
 * Replays a JSON script of assistant turns. The n-th model call of a session gets the n-th
 * turn (so a resumed session continues where it stopped); `byPrompt` picks another list for
 * sessions whose first prompt contains its key. Throws UsageError for an unreadable script.
 */
export function scriptedModel(spec: Extract<ModelSpec, { kind: "scripted" }>): ModelClient {
  const script = loadScript(spec.file);
  return {
    id: `scripted:${spec.file}`,
    profile: { contextWindow: spec.contextWindow, maxOutputTokens: spec.maxOutputTokens },
    canSummarize: false,
    async complete(request: ModelRequest, options = {}): Promise<ModelResponse> {
      const turns = pickTurns(script, request);
      const turn = turns[request.callIndex];
      if (!turn) return { text: "(the script has no more turns)", toolCalls: [], finishReason: "stop" };
      if (turn.delayMs) await delay(turn.delayMs, options.signal);
      if (turn.error) throw new ModelError(turn.error);
      const text = turn.text ?? "";
      if (text) options.onText?.(text);
      const toolCalls = (turn.toolCalls ?? []).map((c, i) => ({
        id: c.id ?? `call_s${request.callIndex}_${i}`,
        name: c.name,
        arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
      }));
      return { text, toolCalls, finishReason: toolCalls.length ? "tool_calls" : "stop" };
    },
  };
}

function pickTurns(script: ScriptFile, request: ModelRequest): ScriptedTurn[] {
  if (!script.byPrompt) return script.turns;
  const first = request.messages.find((m) => m.role === "user" && (m.kind === undefined || m.kind === "prompt"));
  for (const [key, turns] of Object.entries(script.byPrompt)) if (first?.content.includes(key)) return turns;
  return script.turns;
}

function loadScript(file: string): ScriptFile {
  let parsed: unknown;
  try {
    parsed = parseJsonText(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(
      `Cannot load the scripted model ${file}: ${errorMessage(error)}. It must be a JSON list of turns or {"turns": [...]}; see the README section The agent.`,
    );
  }
  const script = Array.isArray(parsed) ? { turns: parsed } : (parsed as ScriptFile);
  if (!script || !Array.isArray(script.turns)) throw new UsageError(`The scripted model ${file} must be a JSON list of turns or {"turns": [...]}.`);
  return script;
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(t);
        reject(new ModelError("The model call was cancelled."));
      },
      { once: true },
    );
  });
}
