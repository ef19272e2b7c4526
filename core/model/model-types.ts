import type { ModelRetry } from "./model-retry.js";

/** A tool call as the model asked for it; `name` is keel's tool name (already unmapped). */
export interface ModelToolCall {
  id: string;
  name: string;
  /** Raw JSON text of the arguments, as the model produced it. */
  arguments: string;
  /**
   * The call's `extra_content` as the server sent it (Gemini's OpenAI endpoint puts the thought
   * signature there, `{"google": {"thought_signature": …}}`, and answers 400 when it does not come
   * back): sent back with the call verbatim.
   */
  extraContent?: Record<string, unknown>;
}

/** The reasoning a thinking model returned beside its answer, kept as it came to be sent back. */
export interface ModelReasoning {
  /** The field its plain text came in (`reasoning_content`: DeepSeek, Qwen, older vLLM; `reasoning`: newer vLLM, OpenRouter, gpt-oss servers). */
  field?: "reasoning_content" | "reasoning";
  text?: string;
  /** OpenRouter's `reasoning_details` (text with signatures, summaries, encrypted blocks). */
  details?: Record<string, unknown>[];
}

/** One message of the model-facing conversation (provider-neutral). */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string; kind?: "prompt" | "hooks" | "guidance" | "queued" | "continuation" | "note" }
  /**
   * `reasoning` is kept on a message with tool calls only; it and the calls' `extraContent` are
   * sent back only to the model that produced them, which `origin` names (see `toWire`). `cutOff`: the
   * response reached the output limit (`finish_reason: "length"`), this many tokens, while writing its tool
   * calls; kept with the message (never sent), so a call cut off there is answered so after a crash too.
   */
  | { role: "assistant"; content: string; toolCalls?: ModelToolCall[]; reasoning?: ModelReasoning; origin?: string; cutOff?: number }
  | { role: "tool"; toolCallId: string; name: string; content: string; pruned?: boolean; artifact?: string };

/** A tool offered to the model. */
export interface ModelToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** Token usage reported by the provider (or estimated). */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

/** One model call. */
export interface ModelRequest {
  messages: readonly ChatMessage[];
  tools: ModelToolSpec[];
  /** Session the call belongs to (scripted models pick their script by it). */
  sessionId?: string;
  /** How many model calls this session made before this one. */
  callIndex: number;
  maxOutputTokens?: number;
}

/** What a model call returns. */
export interface ModelResponse {
  text: string;
  toolCalls: ModelToolCall[];
  /** The model's reasoning, when the server returned it in a field of its own. */
  reasoning?: ModelReasoning;
  /** Which endpoint and model answered (a hash of its base URL and model name, never the URL): provider data in the response goes back only to it. */
  origin?: string;
  usage?: ModelUsage;
  finishReason?: string;
  /**
   * Characters of reasoning that streamed to `onText` as if answer before a `</think>` line said what they were (a
   * template that opened `<think>`, see ThinkBlock): not in `text`. Unset when none were.
   */
  shownReasoningChars?: number;
}

/** Options of one call: cancellation and streaming. */
export interface ModelCallOptions {
  signal?: AbortSignal;
  /** Receives assistant text as it arrives (streaming). */
  onText?: (delta: string) => void;
  /** Told of each retry of a transient failure before keel waits for it (see `withRetries`). */
  onRetry?: (retry: ModelRetry) => void;
}

/** Context window and output limit that drive budgeting. */
export interface ModelProfile {
  contextWindow: number;
  maxOutputTokens: number;
}

/** A model backend. `complete` throws `ModelError` with a message that says what to fix. */
export interface ModelClient {
  /** `openai:<name>` or `scripted:<file>`. */
  readonly id: string;
  readonly profile: ModelProfile;
  /** True when the backend can write summaries (compaction) on request. */
  readonly canSummarize: boolean;
  complete(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse>;
}
