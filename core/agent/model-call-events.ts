/** Events of a session's model calls: each request, its answer, its failure and the retries before one (see session-events.ts). */
import type { ModelUsage } from "../model/model-types.js";
import type { SessionFields } from "./session-events.js";

/** The model is called. */
export interface ModelCallEvent extends SessionFields {
  type: "model_call";
  step: number;
  callIndex: number;
  model: string;
  estimatedTokens: number;
  messages: number;
  /** Tools sent with the request, and their estimated tokens (all tools: `fullToolTokens`). */
  tools: number;
  toolTokens: number;
  fullToolTokens: number;
  /** Tools held back for `tool_search`. */
  deferredTools?: number;
}

/** The model answered. */
export interface ModelResponseEvent extends SessionFields {
  type: "model_response";
  callIndex: number;
  durationMs: number;
  finishReason?: string;
  toolCalls: { id: string; name: string }[];
  textChars: number;
  usage?: ModelUsage;
  /** Reasoning that streamed as if answer before a `</think>` line said what it was (see ModelResponse); not in the answer. */
  shownReasoningChars?: number;
}

/** The model call failed. */
export interface ModelErrorEvent extends SessionFields {
  type: "model_error";
  callIndex: number;
  message: string;
  transient?: boolean;
}

/** A model call failed in a way worth retrying before any of its answer was shown; keel waits `delayMs`, then asks again. */
export interface ModelRetryEvent extends SessionFields {
  type: "model_retry";
  callIndex: number;
  /** 1 for the first retry of this call. */
  attempt: number;
  maxRetries: number;
  delayMs: number;
  /** Why the attempt before failed. */
  message: string;
  /** Set when the server said it is still loading the model: how long keel has waited for it so far, in ms. */
  loadingWaitedMs?: number;
}
