import { createHash } from "node:crypto";
import { fetchWithinOrigin } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions";
import { UsageError } from "../errors.js";
import { urlForDisplay } from "../url-secrets.js";
import { ErrorBodies } from "./error-bodies.js";
import { type Fetch, idleTimeoutFetch } from "./idle-timeout-fetch.js";
import { ModelError } from "./model-error.js";
import { cutOnBreak, finishReasonOf, groqUsage, noArgumentsYet, textOf, withExtra } from "./answer-parts.js";
import { completionJson } from "./completion-json.js";
import { contentText } from "./content-text.js";
import { notJsonLine, streamCut, streamStalled } from "./cut-answers.js";
import { withRetries } from "./model-retry.js";
import type { ModelSpec } from "./model-spec.js";
import type { ModelCallOptions, ModelClient, ModelRequest, ModelResponse, ModelToolCall } from "./model-types.js";
import { reasoningOf, StreamedReasoning } from "./reasoning-field.js";
import { reportedUsage } from "./reported-usage.js";
import { RequestFallbacks } from "./request-fallbacks.js";
import { deltaChars, limitedBody, maxBodyBytes, maxResponseChars } from "./response-size.js";
import { endpointParts } from "./endpoint-url.js";
import { describeProviderError } from "./provider-errors.js";
import { argumentsText, StreamedToolCalls } from "./streamed-tool-calls.js";
import { sseErrorFieldFetch } from "./sse-error-field.js";
import { CallTextHold, textToolCalls } from "./text-tool-calls.js";
import { ThinkBlock } from "./think-block.js";
import { ToolNameMap } from "./tool-names.js";
import { WireBodyEncoder } from "./wire-body.js";
import { envValue } from "../env-value.js";
import { proxyFor, proxySettings } from "../net/proxy-settings.js";

type OpenAISpec = Extract<ModelSpec, { kind: "openai" }>;
type OpenAIClient = import("openai").OpenAI;
type ChunkStream = import("openai/streaming").Stream<ChatCompletionChunk>;

const JSON_BODY = { "content-type": "application/json" };

/**
 * Creates a chat-completions backend on the `openai` package (loaded lazily) for any
 * OpenAI-compatible endpoint. Retries transient failures (`withRetries`: `spec.maxRetries`), honours the
 * timeout, the idle limit of a response's body (`streamIdleTimeoutMs`) and AbortSignal, streams text, and maps tool names and schemas for strict providers.
 * The key is read from `spec.apiKeyEnv` only. Requests go out through `base` (the host's `fetch`, which honours the
 * environment's proxy). Throws UsageError when no API key is available for the hosted OpenAI API.
 */
export function openaiModel(spec: OpenAISpec, env: NodeJS.ProcessEnv, base: Fetch = fetch): ModelClient {
  // Only the variable the config names (OPENAI_API_KEY by default): with "apiKeyEnv" set, an unset
  // variable never falls back to OPENAI_API_KEY, whose key would go to another provider's endpoint.
  const apiKey = envValue(env, spec.apiKeyEnv)?.trim();
  if (!apiKey && !spec.baseUrl)
    throw new UsageError(
      `Model "${spec.name}" needs an API key: set ${spec.apiKeyEnv}, or point "model.baseUrl" (or OPENAI_BASE_URL) at a local OpenAI-compatible server.`,
    );
  let client: Promise<{ sdk: typeof import("openai"); client: OpenAIClient }> | undefined;
  // Messages of error bodies the SDK cannot read (Mistral's, Gemini's), for errors and the retries below.
  // A body that is not an event stream is read whole by the SDK: bounded by the largest output limit a call asks for.
  const bodyLimit = maxBodyBytes(spec.maxOutputTokens);
  const where = spec.baseUrl ? urlForDisplay(spec.baseUrl) : "(OpenAI)";
  // The proxy the endpoint is reached through (`base` honours the same variables), for errors that say so.
  const proxy = proxyFor(spec.baseUrl ?? "https://api.openai.com/v1", proxySettings(env));
  const errorBodies = new ErrorBodies(
    (res) =>
      limitedBody(
        res,
        bodyLimit,
        () =>
          new ModelError(
            `The model endpoint ${where} sent a response of more than ${bodyLimit} bytes, far past its limit of ${spec.maxOutputTokens} output tokens; keel stopped reading it. Check model.baseUrl (or raise model.maxOutputTokens if the model's answers really are this long).`,
          ),
      ),
    // A body that stops sending bytes (a stalled stream) would hang the call: the SDK's timeout ends at the headers.
    // A redirect is followed only within the endpoint's origin (and a POST only on 307/308): fetch would
    // hand `model.headers` (an `api-key`, a proxy's key) to whatever origin a redirect names. The MCP
    // SDK's transports follow the same rule with this function (marked internal there: package-lock pins the SDK, and
    // test/core/model/redirects.test.ts fails if it changes); another redirect fails (provider-errors).
    // llama.cpp's `error:` lines in an event stream become `data: {"error": …}` (after the idle limit: every byte counts there).
    sseErrorFieldFetch(idleTimeoutFetch(spec.streamIdleTimeoutMs, () => streamStalled(where, spec.streamIdleTimeoutMs), fetchWithinOrigin(base) as Fetch)),
  );
  const getClient = () =>
    (client ??= import("openai").then((sdk) => ({
      sdk,
      client: new sdk.OpenAI({
        apiKey: apiKey || "not-needed",
        ...clientEndpoint(spec),
        timeout: spec.timeoutMs,
        // keel retries (withRetries): visibly, cancellably, never after text was shown, and not twice over.
        maxRetries: 0,
        fetch: errorBodies.fetch,
        // The client logs an event-stream line that is not JSON, raw, as an error on the console: the
        // server's bytes (terminal escapes, echoed credentials) on keel's stderr. keel's error says it instead.
        logger: { ...console, error: () => {} },
      }),
    })));
  // Each message is serialized once per client: a request re-sends the cached bytes of the history.
  // Provider data (reasoning, thought signatures) goes back only to the endpoint and model that sent it.
  // Recorded in sessions as a hash: a base URL may carry credentials (`https://user:key@host/v1`).
  const origin = createHash("sha256")
    .update(`${spec.baseUrl ?? "https://api.openai.com/v1"}#${spec.name}`)
    .digest("hex")
    .slice(0, 16);
  const encoder = new WireBodyEncoder(origin);
  // The parts of a request a server refuses (the token-limit field, stream_options, …): switched once it says so.
  const fallbacks = new RequestFallbacks(spec.baseUrl, spec.stream);
  // The endpoint's answers begin inside a reasoning block the model's template opened (only `</think>` in them): once seen
  // in the first answer (such a template opens every one; later, a `</think>` line is an answer quoting one), later answers
  // are held back from their start until it closes (see ThinkBlock).
  let [opensInside, firstAnswer] = [false, true];
  // One attempt at a call; `complete` retries it (the client itself never does: see withRetries).
  async function attempt(request: ModelRequest, options: ModelCallOptions): Promise<ModelResponse> {
    const names = new ToolNameMap(request.tools.map((t) => t.name));
    const maxTokens = request.maxOutputTokens ?? spec.maxOutputTokens;
    const shape = fallbacks.shape();
    // An answer that is only Hermes-style `<tool_call>` blocks (a local model served without a tool-call parser) is its calls, when the server sent none.
    const asCalls = (text: string, sent: readonly ModelToolCall[]) =>
      sent.length === 0 && request.tools.length > 0
        ? textToolCalls(text, new Set(request.tools.map((t) => names.wire(t.name))), names, request.callIndex)
        : undefined;
    const body = (extra: Record<string, unknown>) =>
      encoder.encode(request.messages, request.tools, names, { model: spec.name, [shape.tokenLimit]: maxTokens, ...extra }, shape);
    const { sdk, client: c } = await getClient();
    // The SDK adds an abort listener to the signal it is given and never removes it: given the
    // session's long-lived signal, listeners pile up (one per model call, and Node's leak warning
    // after ten). It gets a signal of its own per call instead, linked for the call's duration.
    const callAbort = new AbortController();
    const onAbort = () => callAbort.abort(options.signal?.reason);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    const signal = callAbort.signal;
    try {
      if (!shape.stream) {
        // Read here, not by the SDK: a body that breaks off or stops mid-JSON (a proxy's timeout, a crashed server)
        // is a cut-off answer, as in a stream; a whole one that is not JSON (a proxy's HTML page) fails at once.
        const response = await c.post<ChatCompletion>("/chat/completions", { body: body({ stream: false }), headers: JSON_BODY, signal }).asResponse();
        const json = await completionJson(response, where, signal);
        const res = (typeof json === "object" && json !== null ? json : {}) as ChatCompletion;
        const choice = res.choices?.[0];
        // OpenRouter answers 200 with only `{"error": …}` when the provider behind it failed: the provider's error, not "no choices".
        const sent = (res as { error?: unknown }).error;
        if (!choice && typeof sent === "object" && sent !== null) throw new sdk.APIError(undefined, sent, undefined, undefined);
        if (!choice)
          throw new ModelError(
            `The model at ${spec.baseUrl ? urlForDisplay(spec.baseUrl) : "OpenAI"} returned no choices; check that "${spec.name}" is a chat model.`,
          );
        // A refusal (OpenAI's `refusal`, in place of the content) is the model's answer too: never an empty one.
        // A leading <think>…</think> in the content (a local reasoning model without a reasoning parser) is no answer.
        const think = new ThinkBlock(opensInside, firstAnswer);
        const content = contentText(choice.message?.content);
        const answer = content && think.add(content) + think.end();
        [opensInside, firstAnswer] = [opensInside || think.beganInside, false];
        const text = answer.slice(think.cut) || textOf(choice.message?.refusal);
        // Some servers leave out `type`: a call with a `function` is a function call.
        const toolCalls = (choice.message?.tool_calls ?? [])
          .flatMap((tc) =>
            tc.type !== "custom" && "function" in tc && tc.function
              ? [
                  withExtra(
                    { id: tc.id, name: names.local(tc.function.name), arguments: argumentsText(tc.function.arguments) },
                    (tc as { extra_content?: unknown }).extra_content,
                  ),
                ]
              : [],
          )
          .map((call, i) => (typeof call.id === "string" && call.id !== "" ? call : { ...call, id: `call_${request.callIndex}_${i}` }));
        fallbacks.sawIds((choice.message?.tool_calls ?? []).map((tc) => tc.id));
        const finishReason = finishReasonOf(choice.finish_reason);
        const written = asCalls(text, toolCalls);
        // Whole, calls written as text are never shown as the answer.
        if (text && !written) options.onText?.(text);
        return {
          text: written ? "" : text,
          toolCalls: written ?? noArgumentsYet(toolCalls, finishReason),
          reasoning: reasoningOf(choice.message),
          origin,
          finishReason,
          usage: res.usage ? reportedUsage(res.usage.prompt_tokens, res.usage.completion_tokens) : undefined,
        };
      }
      const stream = await c.post<ChunkStream>("/chat/completions", {
        body: body({ stream: true, ...(shape.streamOptions ? { stream_options: { include_usage: true } } : {}) }),
        headers: JSON_BODY,
        stream: true,
        signal,
      });
      let text = "";
      const reasoning = new StreamedReasoning();
      // A leading <think>…</think> in the content (a local reasoning model without a reasoning parser) is held back, not shown.
      const thinking = new ThinkBlock(opensInside, firstAnswer);
      // An answer that begins with `<tool_call>` is held back until it ends: it may be calls written as text (asCalls).
      const callText = new CallTextHold(request.tools.length > 0);
      const show = (kept: string) => {
        const shown = callText.add(kept);
        if (shown) options.onText?.(shown);
      };
      let finishReason: string | undefined;
      let usage: ModelResponse["usage"];
      const partial = new StreamedToolCalls();
      let chunks = 0;
      // What is kept of the answer grows with it: a stream far past the output limit is cut off.
      const limit = maxResponseChars(maxTokens);
      let received = 0;
      // The chunks, read until the stream ends; a connection that breaks mid-stream is a cut-off answer (below).
      const chunkStream = cutOnBreak(stream, signal, sdk, (error) =>
        error instanceof SyntaxError ? notJsonLine(where, chunks) : streamCut(where, chunks, error),
      );
      for await (const chunk of chunkStream) {
        chunks++;
        received += 1 + deltaChars(chunk.choices?.[0]?.delta);
        if (received > limit) {
          callAbort.abort();
          throw new ModelError(
            `The model endpoint ${spec.baseUrl ? urlForDisplay(spec.baseUrl) : "(OpenAI)"} streamed more than ${limit} characters for one answer, far past its limit of ${maxTokens} output tokens; keel stopped reading it. The server does not keep to max_tokens: check model.baseUrl (or raise model.maxOutputTokens if the model's answers really are this long).`,
          );
        }
        // Groq sends a streamed answer's usage in `x_groq.usage` on its last chunk, not in `usage`.
        const counts = chunk.usage ?? groqUsage(chunk);
        if (counts) usage = reportedUsage(counts.prompt_tokens, counts.completion_tokens);
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const delta = choice.delta;
        // a refusal streams in place of the content: shown and kept as the answer
        const piece = thinking.add(contentText(delta?.content)) + textOf((delta as { refusal?: unknown } | undefined)?.refusal);
        if (piece) {
          text += piece;
          show(piece);
        }
        if (delta?.tool_calls) partial.add(delta.tool_calls);
        reasoning.add(delta);
        if (choice.finish_reason) finishReason = finishReasonOf(choice.finish_reason);
      }
      // The SDK ends a stream its request's abort interrupts as if it were complete: a cut-off answer is no answer.
      if (signal.aborted) throw new ModelError("The model call was cancelled.");
      // A 200 whose body is not a chat-completions event stream (an HTML page, a JSON error, a proxy's
      // answer) yields no chunks at all: an error, not an empty answer.
      if (chunks === 0)
        throw new ModelError(
          `The model endpoint ${spec.baseUrl ? urlForDisplay(spec.baseUrl) : "(OpenAI)"} answered 200 without a chat-completions stream (no data chunks). Check that the base URL ends in /v1 of an OpenAI-compatible server and that "${spec.name}" supports streaming (or set model.stream to false).`,
        );
      // Every server ends a complete answer with a finish reason (OpenAI in the last choice chunk, before
      // the usage chunk and [DONE]; vLLM, llama.cpp and Ollama with the last content chunk): a stream that
      // ends without one was cut off (a proxy's timeout, a server that crashed), and its half answer or
      // half-built tool call (truncated JSON arguments) must not be recorded or acted on.
      if (finishReason === undefined) throw streamCut(where, chunks);
      // A <think> that never closed was no block (or the answer was cut in it): shown and kept as it came.
      const held = thinking.end();
      if (held) {
        text += held;
        show(held);
      }
      // Reasoning that ended with a `</think>` line of its own (the template had opened the block) was shown, but is no answer.
      const shownReasoningChars = thinking.cut;
      text = text.slice(shownReasoningChars);
      [opensInside, firstAnswer] = [opensInside || thinking.beganInside, false];
      const streamedCalls = partial.result();
      fallbacks.sawIds(streamedCalls.map((p) => p.id));
      const toolCalls: ModelToolCall[] = streamedCalls.map((p, i) =>
        withExtra({ id: p.id || `call_${request.callIndex}_${i}`, name: names.local(p.name), arguments: p.arguments }, p.extraContent),
      );
      const written = asCalls(text, toolCalls);
      const rest = written ? "" : callText.end();
      if (rest) options.onText?.(rest);
      return {
        text: written ? "" : text,
        toolCalls: written ?? noArgumentsYet(toolCalls, finishReason),
        reasoning: reasoning.result(),
        origin,
        finishReason,
        usage,
        ...(shownReasoningChars > 0 ? { shownReasoningChars } : {}),
      };
    } catch (error) {
      if (error instanceof ModelError) throw error;
      // A part of the request the server refuses (a 400 before any output): switched for this client, asked again.
      const bodyMessage = errorBodies.messageOf(error);
      if (fallbacks.adapt(shape, error, bodyMessage, request.tools.length > 0)) return await attempt(request, options);
      throw describeProviderError(error, spec, options.signal, sdk, bodyMessage, apiKey, proxy, errorBodies.jsonBody(error));
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
    }
  }
  return {
    id: `openai:${spec.name}`,
    profile: { contextWindow: spec.contextWindow, maxOutputTokens: spec.maxOutputTokens },
    canSummarize: true,
    complete: (request, options = {}) => withRetries(spec.maxRetries, options, (watched) => attempt(request, watched)),
  };
}

/**
 * The client's `baseURL`, `defaultQuery` and `defaultHeaders`: a query in the base URL (Azure's
 * `?api-version=…`) goes with every request after the path, user info (`https://user:pass@host/v1`,
 * which fetch refuses) as `Authorization: Basic`, and `model.headers` last (they win).
 */
function clientEndpoint(spec: OpenAISpec): { baseURL?: string; defaultQuery?: Record<string, string>; defaultHeaders?: Record<string, string> } {
  const parts = spec.baseUrl ? endpointParts(spec.baseUrl) : undefined;
  const headers = { ...(parts?.authorization ? { Authorization: parts.authorization } : {}), ...spec.headers };
  return {
    ...(parts ? { baseURL: parts.base } : {}),
    ...(parts?.query ? { defaultQuery: parts.query } : {}),
    ...(Object.keys(headers).length ? { defaultHeaders: headers } : {}),
  };
}
