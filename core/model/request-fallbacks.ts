import {
  firstTokenLimitField,
  refusesStreamOptions,
  refusesStreamWithTools,
  refusesUserAfterTool,
  type TokenLimitField,
  wantsMaxCompletionTokens,
} from "./provider-quirks.js";

/** The shape of one chat-completions request: the parts some servers refuse (provider-quirks). */
export interface RequestShape {
  /** The field that caps the answer's length. */
  tokenLimit: TokenLimitField;
  /** A user message right after a tool result is bridged (Mistral refuses it). */
  bridge: boolean;
  /** A streamed request asks for its usage (`stream_options`). */
  streamOptions: boolean;
  /** The answer is streamed. */
  stream: boolean;
}

/**
 * What one client has learned its server refuses, and the request shape it sends from then on: each part
 * is switched once, when the server's error says it refuses that part (a 400 before any output), and the call
 * is asked again. OpenAI's reasoning models refuse `max_tokens` (and other servers may not know its successor),
 * Mistral a user message right after a tool result, some servers `stream_options`, and some (llama.cpp builds)
 * streaming when tools are offered.
 */
export class RequestFallbacks {
  private readonly current: RequestShape;

  /** The first shape: the token-limit field for `baseUrl` (firstTokenLimitField), streamed when `stream`. */
  constructor(baseUrl: string | undefined, stream: boolean) {
    this.current = { tokenLimit: firstTokenLimitField(baseUrl), bridge: false, streamOptions: true, stream };
  }

  /** The shape for the next attempt (a copy: what is learned meanwhile does not change it). */
  shape(): RequestShape {
    return { ...this.current };
  }

  /**
   * After an attempt with `shape` failed with `error` (its body's message `bodyMessage`, read by keel where the
   * SDK cannot): true when the server refused a part of that shape that has a fallback, which is switched
   * for this client (the caller asks again); false when there is none. Never throws.
   */
  adapt(shape: RequestShape, error: unknown, bodyMessage: string | undefined, withTools: boolean): boolean {
    if (shape.tokenLimit === "max_tokens" && wantsMaxCompletionTokens(error, bodyMessage)) {
      this.current.tokenLimit = "max_completion_tokens";
      return true;
    }
    if (shape.stream && withTools && refusesStreamWithTools(error, bodyMessage)) {
      this.current.stream = false;
      return true;
    }
    if (shape.stream && shape.streamOptions && refusesStreamOptions(error, bodyMessage)) {
      this.current.streamOptions = false;
      return true;
    }
    if (!shape.bridge && refusesUserAfterTool(error, bodyMessage)) {
      this.current.bridge = true;
      return true;
    }
    return false;
  }
}
