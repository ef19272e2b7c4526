import { resolve } from "node:path";
import type { KeelConfig } from "../config/config-schema.js";
import { UsageError } from "../errors.js";
import { MAX_TIMER_MS } from "../tool-call.js";
import { MAX_MODEL_RETRIES } from "./model-retry.js";

/** Default context window when the config names none. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
/** Default output limit when the config names none. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4_096;
/** Default timeout of one model request. */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
/** Default of `model.streamIdleTimeoutMs`: the longest a response's body may send nothing (as Codex's `stream_idle_timeout_ms`). */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 300_000;

/** A fully resolved model choice (frozen into session.json). */
export type ModelSpec =
  | { kind: "scripted"; file: string; contextWindow: number; maxOutputTokens: number }
  | {
      kind: "openai";
      name: string;
      baseUrl?: string;
      apiKeyEnv: string;
      contextWindow: number;
      maxOutputTokens: number;
      timeoutMs: number;
      /** Longest wait for the next bytes of a response's body once its headers are in (keep-alive comments count). */
      streamIdleTimeoutMs: number;
      maxRetries: number;
      stream: boolean;
      /** Extra HTTP headers sent with every request (`model.headers`: a proxy's key, OpenRouter's `HTTP-Referer`); never written to sessions. */
      headers?: Record<string, string>;
    };

/** How to configure a model, shown when none is configured. */
export const MODEL_HELP = [
  "No model is configured. Configure one of:",
  '  keel run --model scripted:script.json "…"          (replay a scripted model)',
  '  keel run --model gpt-4o-mini "…"                     (with OPENAI_API_KEY set)',
  // Your config: an untrusted workspace's keel.config.json may not set an endpoint or a scripted model (they are ignored there).
  '  $KEEL_HOME/config.json (or a trusted workspace\'s keel.config.json): {"model": {"name": "llama3.1", "baseUrl": "http://localhost:11434/v1"}}',
  '  $KEEL_HOME/config.json (or a trusted workspace\'s keel.config.json): {"model": "scripted:script.json"}',
  "  OPENAI_BASE_URL / OPENAI_API_KEY select an OpenAI-compatible endpoint. See the README section The agent.",
].join("\n");

/**
 * Resolves the model from `--model`, the `model` config and the environment. Returns
 * undefined when nothing is configured; throws UsageError for an unusable value.
 */
export function resolveModelSpec(config: KeelConfig, flag: string | undefined, env: NodeJS.ProcessEnv, root: string): ModelSpec | undefined {
  const cfg = typeof config.model === "object" && config.model ? config.model : {};
  const cfgString = typeof config.model === "string" ? config.model.trim() : undefined;
  const chosen = flag?.trim() || cfgString || (cfg as { name?: string }).name?.trim();
  if (!chosen) return undefined;
  const contextWindow = (cfg as { contextWindow?: number }).contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  const maxOutputTokens = (cfg as { maxOutputTokens?: number }).maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  if (chosen.startsWith("scripted:")) {
    const file = chosen.slice("scripted:".length).trim();
    if (!file) throw new UsageError('A scripted model needs a file: "scripted:path/to/script.json".');
    return { kind: "scripted", file: resolve(root, file), contextWindow, maxOutputTokens };
  }
  const extra = cfg as {
    baseUrl?: string;
    apiKeyEnv?: string;
    timeoutMs?: number;
    streamIdleTimeoutMs?: number;
    maxRetries?: number;
    stream?: boolean;
    headers?: Record<string, string>;
  };
  return {
    kind: "openai",
    name: chosen,
    baseUrl: extra.baseUrl?.trim() || env.OPENAI_BASE_URL?.trim() || undefined,
    apiKeyEnv: extra.apiKeyEnv?.trim() || "OPENAI_API_KEY",
    contextWindow,
    maxOutputTokens,
    // A longer delay would make the client's timer fire at once (config load warns, naming the file).
    timeoutMs: Math.min(extra.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS, MAX_TIMER_MS),
    streamIdleTimeoutMs: Math.min(extra.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS, MAX_TIMER_MS),
    // Bounded: each retry may wait up to a minute (Retry-After).
    maxRetries: typeof extra.maxRetries === "number" && extra.maxRetries >= 0 ? Math.min(Math.floor(extra.maxRetries), MAX_MODEL_RETRIES) : 2,
    stream: extra.stream !== false,
    ...(extra.headers && Object.keys(extra.headers).length ? { headers: { ...extra.headers } } : {}),
  };
}

/** Like `resolveModelSpec`, but throws a UsageError (exit 2) that shows how to configure a model. */
export function requireModelSpec(config: KeelConfig, flag: string | undefined, env: NodeJS.ProcessEnv, root: string): ModelSpec {
  const spec = resolveModelSpec(config, flag, env, root);
  if (!spec) throw new UsageError(MODEL_HELP);
  return spec;
}

/**
 * A model recorded in a session file, made safe to use again: session files live in the repository
 * and may have been committed, so where requests go and which variable holds the key come from the
 * current (trusted) config and environment, never from the file. Only the model's name is kept.
 */
export function recordedModelSpec(recorded: ModelSpec, config: KeelConfig, env: NodeJS.ProcessEnv, root: string): ModelSpec {
  if (recorded.kind === "scripted") return recorded;
  // A name that is missing or blank names no model: the configured one is used, and without one there
  // is nothing to fall back on (never the file's own endpoint and key variable).
  const name = typeof recorded.name === "string" ? recorded.name.trim() : "";
  const spec = resolveModelSpec(config, name || undefined, env, root);
  if (!spec) throw new UsageError(`The session records no model name, and none is configured. Resume it with --model NAME.\n${MODEL_HELP}`);
  return spec;
}
