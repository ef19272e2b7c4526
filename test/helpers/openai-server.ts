import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { callIdPatternError, chatRuleError, type ChatRuleError } from "./strict-chat-rules.js";

/** One scripted reply of the local OpenAI-compatible server. */
export interface ServerReply {
  text?: string;
  /** `extraContent` is sent as the call's `extra_content` (Gemini's thought signature). */
  toolCalls?: { id?: string; name: string; arguments?: unknown; extraContent?: object }[];
  /** Reply with this HTTP status and an OpenAI-style error body instead. */
  status?: number;
  errorMessage?: string;
  /**
   * Reply 200 (or `status`) with this body and content type instead (e.g. an HTML page from a misconfigured proxy): chunked,
   * or with `contentLength` its length in a Content-Length header.
   */
  rawBody?: { contentType: string; body: string; contentLength?: boolean; status?: number };
  /** Wait before answering (slow responses, timeouts, kill tests). */
  delayMs?: number;
  /** Only use this reply for a request it matches (e.g. a compaction request); unmatched replies are used in order. */
  match?: (body: ChatRequestBody) => boolean;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /**
   * How streamed tool-call deltas are keyed: by their position (the protocol, default), with no
   * `index` at all (Gemini's OpenAI endpoint, some local servers), or `index: 0` for every call (Ollama).
   */
  toolCallIndex?: "position" | "omitted" | "zero";
  /** Stream each call's name with every one of its deltas (MiniMax on NVIDIA NIM, Fireworks), its arguments in 3-character pieces. */
  repeatToolName?: boolean;
  /** How tool-call ids are sent: once per call (the protocol, default), not at all, or a new one with every streamed delta (Poolside). */
  toolCallIds?: "once" | "omitted" | "per-delta";
  /** Send each call's `arguments` as a JSON object and without `type`, as some servers do (llama-server in some versions, TGI). */
  looseToolCalls?: boolean;
  /** Reasoning beside the answer, in `reasoning_content` (DeepSeek, the default) or `reasoning` (newer vLLM, OpenRouter). */
  reasoning?: { text: string; field?: "reasoning_content" | "reasoning" };
  /**
   * Answer 400 as DeepSeek's thinking mode does when an assistant message with tool calls in the
   * request lacks the `reasoning_content` the server returned with it.
   */
  requireReasoningBack?: boolean;
  /** Answer 400 as Gemini does when an assistant tool call in the request lacks `extra_content.google.thought_signature`. */
  requireSignatureBack?: boolean;
  /** Answer 400 as OpenAI's reasoning models do to a request with `max_tokens` (the reply stays queued for the retry). */
  refuseMaxTokens?: boolean;
  /**
   * Answer 400 as vLLM does (0.9) to an assistant message with empty content and no tool calls in the request (OpenAI
   * accepts one; vLLM reads "" as no content). The reply stays queued.
   */
  refuseEmptyAssistant?: boolean;
  /**
   * Answer 400 as Anthropic's OpenAI-compatible endpoint (and proxies in front of Claude) does to a user or tool message
   * whose content is empty or only whitespace. The reply stays queued.
   */
  refuseEmptyContent?: boolean;
  /**
   * Answer 400 as vLLM and SGLang do when the `arguments` of a tool call in the request are not JSON (they parse
   * them for the chat template). The reply stays queued.
   */
  parseArguments?: boolean;
  /** Answer 400 as vLLM does to a limit larger than the context leaves (its message names both limit fields). */
  limitTooLarge?: boolean;
  /** Answer 400 as Mistral does to a user message right after a tool result (the reply stays queued for the retry). */
  refuseUserAfterTool?: boolean;
  /**
   * Answer 400 as Mistral does to a request with a tool-call id (an assistant call's `id` or a result's `tool_call_id`)
   * that is not exactly 9 of `[a-zA-Z0-9]` (the reply stays queued for the retry).
   */
  requireShortCallIds?: boolean;
  /** Answer 400 as Anthropic's OpenAI-compatible endpoint does to a tool-call id outside `[a-zA-Z0-9_-]` (callIdPatternError); the reply stays queued. */
  requirePatternCallIds?: boolean;
  /** With `status`: these response headers too (`Retry-After`, `x-should-retry`). */
  errorHeaders?: Record<string, string>;
  /** With `status`: this JSON as the error body instead of OpenAI's `{"error": {"message": …}}` (Mistral's and Gemini's shapes). */
  errorBody?: unknown;
  /** OpenRouter's `reasoning_details`; streamed with each detail's `text` in two pieces, its other fields on the second. */
  reasoningDetails?: Record<string, unknown>[];
  /** Answer 400 when an assistant message with tool calls in the request lacks `reasoning_details`. */
  requireDetailsBack?: boolean;
  /**
   * Stop sending without ending the response, as a stalled endpoint does: `"headers"` right after
   * the headers (not one byte of the body; streamed or not), `"partial"` after the chunks of `text`
   * (no finish reason, no `[DONE]`). The connection stays open until the client closes it.
   */
  stall?: "headers" | "partial";
  /**
   * End a streamed answer without a finish reason, as a connection cut mid-answer does: `"close"` ends the
   * response cleanly after the content and tool-call chunks (no finish reason, no `[DONE]`), `"done"` sends
   * the usage chunk and `[DONE]` but never a finish reason, `"reset"` destroys the connection. Not streamed:
   * `"close"` ends the response after the first half of its JSON body, `"reset"` destroys the connection after it,
   * `"done"` sends the whole body without `finish_reason` (as KoboldCpp did).
   */
  cut?: "close" | "done" | "reset";
  /** Stream only the first half of each tool call's arguments (a call cut off mid-JSON: with `cut`, or `finishReason: "length"`). */
  halfToolArguments?: boolean;
  /** The finish reason sent (default `tool_calls` with calls, else `stop`): `length`, `content_filter`, … */
  finishReason?: string;
  /** Send the finish reason with the last content or tool-call chunk instead of a chunk of its own (vLLM, llama.cpp, Ollama). */
  finishWithLastDelta?: boolean;
  /** Send no usage chunk after the finish reason. */
  noUsage?: boolean;
  /**
   * Answer 200 and send this as the `error` of a chunk after the chunks of `text` (none without text), then end the
   * stream, as OpenRouter does when the provider behind it fails mid-answer (`{"code": 502, "message": "Provider returned
   * error"}`); not streamed, answer 200 with only `{"error": …}` as the body.
   */
  errorInAnswer?: object;
  /**
   * Stream exactly this script instead of a built answer (a server's raw output, quirks and all): an object is sent as
   * `data: JSON` and a string verbatim (`"data: [DONE]\n\n"`, `": comment\n\n"`, a line that is not JSON); nothing
   * is added — no `[DONE]`, no finish reason, no usage — and the response ends after the last item.
   */
  sse?: (string | object)[];
  /** Before the answer, an SSE keep-alive comment (`: OPENROUTER PROCESSING`) every `everyMs` for `forMs`, as OpenRouter sends while a reasoning model thinks. */
  keepAlive?: { everyMs: number; forMs: number };
}

/** The parts of a chat-completions request the tests look at. */
export interface ChatRequestBody {
  model: string;
  stream?: boolean;
  messages: {
    role: string;
    content: string | null;
    tool_calls?: { id: string; function: { name: string; arguments: string }; extra_content?: { google?: { thought_signature?: unknown } } }[];
    tool_call_id?: string;
    reasoning_content?: unknown;
    reasoning?: unknown;
    reasoning_details?: unknown;
  }[];
  tools?: { type: string; function: { name: string; description?: string; parameters: Record<string, unknown> } }[];
  [key: string]: unknown;
}

/** A running local server. */
export interface OpenAIServer {
  /** Base URL to configure (`…/v1`). */
  baseUrl: string;
  /** Every chat-completions request received, parsed, in order. */
  requests: ChatRequestBody[];
  /** The Authorization header of each chat-completions request, in the same order. */
  authorizations: (string | undefined)[];
  /** All headers of each chat-completions request, in the same order. */
  headers: IncomingHttpHeaders[];
  /** The URL (path and query) of every request received, in order (`/models` too). */
  urls: string[];
  /** With `strict`: the broken rule of each request the server refused (400), in order. */
  refused: ChatRuleError[];
  /** Adds replies at the end of the queue. */
  push(...replies: ServerReply[]): void;
  close(): Promise<void>;
}

/** How the server checks requests. */
export interface OpenAIServerOptions {
  /**
   * Check every request's messages as strictly as OpenAI does (see strict-chat-rules.ts) and answer
   * one that breaks a rule with 400 and OpenAI's error body, the scripted reply left queued.
   */
  strict?: boolean;
}

/**
 * Starts an OpenAI-compatible chat-completions server on 127.0.0.1 (node:http) that answers
 * with scripted replies — streaming (SSE chunks, when the request asks for it) or not — with
 * tool calls, errors and delays, and records the requests it received. When the queue is
 * empty it answers "(no more scripted replies)".
 */
export async function startOpenAIServer(replies: ServerReply[] = [], options: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  const queue = [...replies];
  const refused: ChatRuleError[] = [];
  const requests: ChatRequestBody[] = [];
  const authorizations: (string | undefined)[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const urls: string[] = [];
  const server = createServer((req, res) => void handle(req, res));
  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    urls.push(req.url ?? "");
    if (path.startsWith("/moved/")) {
      // An endpoint that moved: `…/moved/v1/…` redirects (307: same method and body) to `…/v1/…`.
      res.writeHead(307, { location: req.url!.slice("/moved".length) }).end();
      return;
    }
    if (req.method === "GET" && path.endsWith("/models")) {
      // What `keel doctor` asks to check that the endpoint is reachable.
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "test-model", object: "model" }] }));
      return;
    }
    if (!path.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequestBody;
    requests.push(body);
    authorizations.push(req.headers.authorization);
    headers.push(req.headers);
    const broken = options.strict ? chatRuleError(body.messages) : undefined;
    if (broken) {
      refused.push(broken);
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { ...broken, type: "invalid_request_error" } }));
      return;
    }
    let index = queue.findIndex((r) => r.match?.(body));
    if (index === -1) index = queue.findIndex((r) => !r.match);
    if (index !== -1 && queue[index]!.refuseMaxTokens && "max_tokens" in body) {
      const message = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message, type: "invalid_request_error", param: "max_tokens", code: "unsupported_parameter" } }));
      return;
    }
    if (index !== -1 && queue[index]!.refuseUserAfterTool && body.messages.some((m, i) => m.role === "user" && body.messages[i - 1]?.role === "tool")) {
      const message = "Unexpected role 'user' after role 'tool'";
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ object: "error", message, type: "invalid_request_message_order", param: null, code: "3230" }));
      return;
    }
    const empty = body.messages.find((m) => m.role === "assistant" && !m.tool_calls?.length && !m.content);
    if (index !== -1 && queue[index]!.refuseEmptyAssistant && empty) {
      const message = `Invalid assistant message: role='assistant' content=None tool_calls=None prefix=False`;
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ object: "error", message, type: "BadRequestError", param: null, code: 400 }));
      return;
    }
    const blank = body.messages.findIndex((m) => (m.role === "user" || m.role === "tool") && (typeof m.content !== "string" || m.content.trim() === ""));
    if (index !== -1 && queue[index]!.refuseEmptyContent && blank !== -1) {
      const message = `messages.${blank}: all messages must have non-empty content except for the optional final assistant message`;
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { code: "invalid_request_error", message, type: "invalid_request_error", param: null } }));
      return;
    }
    if (index !== -1 && queue[index]!.parseArguments) {
      const unparsable = body.messages.flatMap((m) => m.tool_calls ?? []).find((c) => !isJson(c.function.arguments));
      if (unparsable) {
        const message = `Expecting value: line 1 column 1 (char 0) (arguments of ${unparsable.function.name})`;
        res
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ object: "error", message, type: "BadRequestError", param: null, code: 400 }));
        return;
      }
    }
    const badId =
      index !== -1 && queue[index]!.requireShortCallIds
        ? body.messages
            .flatMap((m) => [...(m.tool_calls ?? []).map((c) => c.id), ...(m.tool_call_id === undefined ? [] : [m.tool_call_id])])
            .find((id) => !/^[a-zA-Z0-9]{9}$/.test(id))
        : undefined;
    const patternError = index !== -1 && queue[index]!.requirePatternCallIds ? callIdPatternError(body.messages) : undefined;
    if (patternError !== undefined) {
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { type: "invalid_request_error", message: patternError } }));
      return;
    }
    if (badId !== undefined) {
      const message = `Tool call id was ${badId} but must be a-z, A-Z, 0-9, with a length of 9.`;
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ object: "error", message, type: "invalid_request_error", param: null, code: null }));
      return;
    }
    if (index !== -1 && queue[index]!.limitTooLarge) {
      queue.splice(index, 1);
      const message =
        "'max_tokens' or 'max_completion_tokens' is too large: 32000. This model's maximum context length is 32768 tokens and your request has 1000 input tokens (32000 > 32768 - 1000). None";
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message, type: "BadRequestError", param: null, code: 400 } }));
      return;
    }
    const reply = index === -1 ? { text: "(no more scripted replies)" } : queue.splice(index, 1)[0]!;
    // unref: a reply delayed past the end of a test never holds the process open.
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs).unref());
    if (res.destroyed) return;
    if (reply.rawBody) {
      const length = reply.rawBody.contentLength ? { "content-length": String(Buffer.byteLength(reply.rawBody.body)) } : {};
      res.writeHead(reply.rawBody.status ?? 200, { "content-type": reply.rawBody.contentType, ...length }).end(reply.rawBody.body);
      return;
    }
    if (reply.requireReasoningBack) {
      const missing = body.messages.findIndex((m) => m.role === "assistant" && m.tool_calls?.length && typeof m.reasoning_content !== "string");
      if (missing !== -1) {
        const message = `Missing \`reasoning_content\` field in the assistant message at message index ${missing}.`;
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message, type: "invalid_request_error" } }));
        return;
      }
    }
    if (reply.requireDetailsBack) {
      const missing = body.messages.findIndex((m) => m.role === "assistant" && m.tool_calls?.length && !Array.isArray(m.reasoning_details));
      if (missing !== -1) {
        const message = `Reasoning details of the assistant message at index ${missing} were not passed back.`;
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message, code: 400 } }));
        return;
      }
    }
    if (reply.requireSignatureBack) {
      const unsigned = body.messages.flatMap((m) => m.tool_calls ?? []).find((c) => typeof c.extra_content?.google?.thought_signature !== "string");
      if (unsigned) {
        const message = `Function call is missing a thought_signature in functionCall parts. Additional data, function call \`${unsigned.function.name}\`.`;
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify([{ error: { code: 400, message, status: "INVALID_ARGUMENT" } }]));
        return;
      }
    }
    if (reply.status) {
      res
        .writeHead(reply.status, { "content-type": "application/json", ...reply.errorHeaders })
        .end(JSON.stringify(reply.errorBody ?? { error: { message: reply.errorMessage ?? "error", type: "test_error" } }));
      return;
    }
    if (reply.sse) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const item of reply.sse) res.write(typeof item === "string" ? item : `data: ${JSON.stringify(item)}\n\n`);
      res.end();
      return;
    }
    const calls = (reply.toolCalls ?? []).map((c, i) => ({
      id: reply.toolCallIds === "omitted" ? undefined : (c.id ?? `call_${requests.length}_${i}`),
      type: "function" as const,
      function: { name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}) },
      ...(c.extraContent ? { extra_content: c.extraContent } : {}),
    }));
    /** A call as the reply sends it: per protocol, or loose (object arguments, no `type`). */
    const wire = (c: (typeof calls)[number], args = c.function.arguments): object =>
      reply.looseToolCalls
        ? { id: c.id, function: { name: c.function.name, arguments: JSON.parse(c.function.arguments) } }
        : { ...c, function: { ...c.function, arguments: args } };
    const usage = reply.usage ?? { prompt_tokens: 100, completion_tokens: 10 };
    const reasoning = {
      ...(reply.reasoning ? { [reply.reasoning.field ?? "reasoning_content"]: reply.reasoning.text } : {}),
      ...(reply.reasoningDetails ? { reasoning_details: reply.reasoningDetails } : {}),
    };
    const finish = reply.finishReason ?? (calls.length ? "tool_calls" : "stop");
    const base = { id: `chatcmpl-${requests.length}`, created: Math.floor(Date.now() / 1000), model: body.model };
    if (reply.stall === "headers") {
      res.writeHead(200, { "content-type": body.stream ? "text/event-stream" : "application/json" }).flushHeaders();
      return;
    }
    if (!body.stream && reply.errorInAnswer) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ error: reply.errorInAnswer }));
      return;
    }
    if (!body.stream) {
      const json = JSON.stringify({
        ...base,
        object: "chat.completion",
        choices: [
          {
            index: 0,
            ...(reply.cut === "done" ? {} : { finish_reason: finish }),
            message: { role: "assistant", content: reply.text ?? null, ...reasoning, ...(calls.length ? { tool_calls: calls.map((c) => wire(c)) } : {}) },
          },
        ],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
      const half = json.slice(0, Math.floor(json.length / 2));
      if (reply.cut === "close") return void res.writeHead(200, { "content-type": "application/json" }).end(half);
      if (reply.cut === "reset") {
        res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(json)) });
        return void res.write(half, () => setTimeout(() => res.destroy(), 20).unref());
      }
      res.writeHead(200, { "content-type": "application/json" }).end(json);
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    // With `finishWithLastDelta`, each delta waits for the next: the last one goes out with the finish reason.
    let held: object | undefined;
    const write = (delta: object, finish_reason: string | null) =>
      res.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }] })}\n\n`);
    const send = (delta: object, finish_reason: string | null = null) => {
      if (!reply.finishWithLastDelta || finish_reason !== null) return void write(delta, finish_reason);
      if (held) write(held, null);
      held = delta;
    };
    if (reply.keepAlive) await keepAlive(res, reply.keepAlive);
    if (res.destroyed) return;
    send({ role: "assistant", content: "" });
    if (reply.reasoning) {
      const { field = "reasoning_content", text: thought } = reply.reasoning;
      for (let i = 0; i < thought.length; i += 8) send({ [field]: thought.slice(i, i + 8) });
    }
    (reply.reasoningDetails ?? []).forEach((detail, index) => {
      const { text, ...rest } = detail as { text?: string };
      if (text === undefined) return void send({ reasoning_details: [{ ...rest, index }] });
      const half = Math.floor(text.length / 2);
      send({ reasoning_details: [{ type: rest["type" as keyof typeof rest], index, text: text.slice(0, half) }] });
      send({ reasoning_details: [{ ...rest, index, text: text.slice(half) }] });
    });
    const text = reply.text ?? "";
    for (let i = 0; i < text.length; i += 8) send({ content: text.slice(i, i + 8) });
    if (reply.stall === "partial") return;
    if (reply.errorInAnswer) {
      const chunk = {
        ...base,
        object: "chat.completion.chunk",
        error: reply.errorInAnswer,
        choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }],
      };
      return void res.end(`data: ${JSON.stringify(chunk)}\n\n`);
    }
    calls.forEach((c, i) => {
      const args = reply.halfToolArguments ? c.function.arguments.slice(0, Math.floor(c.function.arguments.length / 2)) : c.function.arguments;
      const half = Math.floor(args.length / 2);
      const index = reply.toolCallIndex === "omitted" ? {} : { index: reply.toolCallIndex === "zero" ? 0 : i };
      if (reply.looseToolCalls) return void send({ tool_calls: [{ ...index, ...wire(c) }] }); // the whole call in one delta
      if (reply.repeatToolName) {
        for (let at = 0; at === 0 || at < args.length; at += 3)
          send({
            tool_calls: [
              { ...index, ...(at === 0 ? { id: c.id, type: "function" } : {}), function: { name: c.function.name, arguments: args.slice(at, at + 3) } },
            ],
          });
        return;
      }
      const extra = "extra_content" in c ? { extra_content: c.extra_content } : {};
      send({ tool_calls: [{ ...index, id: c.id, type: "function", function: { name: c.function.name, arguments: args.slice(0, half) }, ...extra }] });
      send({ tool_calls: [{ ...index, ...(reply.toolCallIds === "per-delta" ? { id: `${c.id}-more` } : {}), function: { arguments: args.slice(half) } }] });
    });
    // Once what was sent has left (else the client may see the connection fail before the headers).
    if (reply.cut === "reset") return void res.write(": cut\n\n", () => setTimeout(() => res.destroy(), 20).unref());
    if (reply.cut === "close") {
      if (held) write(held, null);
      return void res.end();
    }
    if (reply.cut === "done") {
      if (held) write(held, null);
    } else send(held ?? {}, finish);
    if (!reply.noUsage)
      res.write(
        `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`,
      );
    res.end("data: [DONE]\n\n");
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    authorizations,
    headers,
    urls,
    refused,
    push: (...r) => void queue.push(...r),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Whether `text` parses as JSON. */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Sends an SSE comment every `everyMs` for `forMs` (or until the client goes away). */
async function keepAlive(res: ServerResponse, { everyMs, forMs }: { everyMs: number; forMs: number }): Promise<void> {
  const until = Date.now() + forMs;
  while (Date.now() < until && !res.destroyed) {
    res.write(": OPENROUTER PROCESSING\n\n");
    await new Promise((r) => setTimeout(r, everyMs).unref());
  }
}

/** The text of every message of a request joined (for `toContain` checks). */
export function requestText(body: ChatRequestBody): string {
  return body.messages.map((m) => `[${m.role}] ${m.content ?? ""}`).join("\n");
}

/**
 * One local server for the calling test file: started in `beforeAll`, closed in `afterAll`. The
 * returned object forwards to it, so tests use it as they would the server itself.
 */
export function useOpenAIServer(options: OpenAIServerOptions = {}): OpenAIServer {
  let current: OpenAIServer | undefined;
  beforeAll(async () => {
    current = await startOpenAIServer([], options);
  });
  afterAll(() => current?.close());
  const get = (): OpenAIServer => {
    if (!current) throw new Error("useOpenAIServer: the server starts in beforeAll; use it inside tests");
    return current;
  };
  return {
    get baseUrl() {
      return get().baseUrl;
    },
    get requests() {
      return get().requests;
    },
    get authorizations() {
      return get().authorizations;
    },
    get headers() {
      return get().headers;
    },
    get urls() {
      return get().urls;
    },
    get refused() {
      return get().refused;
    },
    push: (...replies) => get().push(...replies),
    close: () => get().close(),
  };
}
