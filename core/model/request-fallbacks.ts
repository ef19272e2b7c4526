import {
  firstTokenLimitField,
  refusesCallIdFormat,
  refusesCallIdPattern,
  refusesEmptyContent,
  refusesStreamOptions,
  refusesStreamWithTools,
  refusesUserAfterTool,
  type TokenLimitField,
  wantsMaxCompletionTokens,
} from "./provider-quirks.js";
import { isShortCallId } from "./short-call-ids.js";

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
  /** Tool-call ids are sent in the 9-character `[a-zA-Z0-9]` form (Mistral refuses any other: `shortCallId`). */
  shortIds: boolean;
  /** Tool-call ids outside `[a-zA-Z0-9_-]` are sent as `call_<hash>` (Anthropic refuses them: `patternCallId`). */
  patternIds: boolean;
  /** A user or tool message with empty content is sent with a placeholder (Anthropic's compatible endpoint refuses "": `fillEmptyContent`). */
  fillEmpty: boolean;
}

/**
 * What one client has learned its server refuses, and the request shape it sends from then on: each part
 * is switched once, when the server's error says it refuses that part (a 400 before any output), and the call
 * is asked again. OpenAI's reasoning models refuse `max_tokens` (and other servers may not know its successor),
 * Mistral a user message right after a tool result, some servers `stream_options`, some (llama.cpp builds)
 * streaming when tools are offered, and Anthropic's compatible endpoint a message with empty content and a tool-call id
 * outside `[a-zA-Z0-9_-]` (Kimi's; not rewritten for every server, as Kimi's own template may rely on its form). Mistral's ids are learned from the server's own ids too (`sawIds`).
 */
export class RequestFallbacks {
  private readonly current: RequestShape;

  /** The first shape: the token-limit field for `baseUrl` (firstTokenLimitField), streamed when `stream`. */
  constructor(baseUrl: string | undefined, stream: boolean) {
    this.current = {
      tokenLimit: firstTokenLimitField(baseUrl),
      bridge: false,
      streamOptions: true,
      stream,
      shortIds: false,
      patternIds: false,
      fillEmpty: false,
    };
  }

  /** The shape for the next attempt (a copy: what is learned meanwhile does not change it). */
  shape(): RequestShape {
    return { ...this.current };
  }

  /** Notes the ids the server itself gave (none keel made up): all in Mistral's 9-character form means it wants that form back. */
  sawIds(ids: readonly (string | undefined)[]): void {
    const given = ids.filter((id): id is string => typeof id === "string" && id !== "");
    if (given.length > 0 && given.every(isShortCallId)) this.current.shortIds = true;
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
    if (!shape.shortIds && refusesCallIdFormat(error, bodyMessage)) {
      this.current.shortIds = true;
      return true;
    }
    if (!shape.shortIds && !shape.patternIds && refusesCallIdPattern(error, bodyMessage)) {
      this.current.patternIds = true;
      return true;
    }
    if (!shape.fillEmpty && refusesEmptyContent(error, bodyMessage)) {
      this.current.fillEmpty = true;
      return true;
    }
    return false;
  }
}
