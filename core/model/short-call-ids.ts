import { createHash } from "node:crypto";

/** Tool-call ids as Mistral's API accepts them (and vLLM's Mistral tokenizer, Mistral v3 chat templates): exactly 9 of `[a-zA-Z0-9]`. */
const SHORT_ID = /^[a-zA-Z0-9]{9}$/;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** True when `id` has the 9-character form Mistral gives and requires. */
export function isShortCallId(id: string): boolean {
  return SHORT_ID.test(id);
}

/**
 * `id` as sent to a server that accepts only 9-character `[a-zA-Z0-9]` ids: unchanged when it already has that
 * form (the server's own ids go back exactly as it gave them), else 9 characters derived from a SHA-256 of it, so
 * that a call and its result, mapped apart, still match, request after request. Two different ids map to the
 * same one with a chance of about one in 62^9 (1.3e16) per pair.
 */
export function shortCallId(id: string): string {
  if (isShortCallId(id)) return id;
  const digest = createHash("sha256").update(id).digest();
  let out = "";
  for (let i = 0; i < 9; i++) out += ALPHABET[digest[i]! % ALPHABET.length];
  return out;
}
