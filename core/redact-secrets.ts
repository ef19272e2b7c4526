import { encodedForms, hideInWrappedBlocks } from "./encoded-forms.js";

/** What a redacted secret is replaced with. */
export const REDACTED = "***";

/** Shorter values are not redacted: replacing one or two characters would mangle ordinary text and hide nothing. */
export const MIN_SECRET_LENGTH = 3;

/** A line of a secret of several lines (a private key) at least this long is redacted on its own too. */
export const MIN_SECRET_LINE_LENGTH = 8;

/**
 * `text` with every secret replaced by `***`: as written, URL-encoded (as in a URL and as in a form
 * body) and JSON-escaped (the forms an error message, a URL or a serialized object shows it in), and, for secrets of
 * MIN_ENCODED_SECRET_BYTES or more, base64-encoded (standard and URL-safe, at any alignment, also across the line
 * breaks of wrapped output) and hex-encoded (see encoded-forms.ts), longest first so a secret that
 * contains another is replaced whole. Each line of a secret of several lines that is at least
 * MIN_SECRET_LINE_LENGTH long (trimmed) counts as a secret too, so text cut inside such a secret (the
 * end of a private key) shows none of its lines. Secrets shorter than MIN_SECRET_LENGTH are ignored. Never throws.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  if (!secrets.length || !text) return text;
  return secretRedactor(secrets)(text);
}

/**
 * `redactSecrets` with these `secrets` as a function, their forms worked out once (for many texts: a tool list, a
 * value's strings). Never throws.
 */
export function secretRedactor(secrets: readonly string[]): (text: string) => string {
  const { forms, encoded } = secrets.length ? formsOf(secrets) : { forms: [], encoded: [] };
  const hide = (text: string) => {
    let out = text;
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    return out;
  };
  return (text) => hideInWrappedBlocks(hide(text), encoded, hide);
}

/**
 * A copy of a JSON-like value with `redactSecrets` applied to every string in it (object keys
 * included), so numbers, booleans and the structure stay intact. Never throws.
 */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  if (!secrets.length) return value;
  const redact = secretRedactor(secrets);
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redact(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** Every form of `secrets` (see `redactSecrets`), longest first, and the encoded ones (base64 and hex) among them. */
function formsOf(secrets: readonly string[]): { forms: string[]; encoded: string[] } {
  const forms = new Set<string>();
  const encoded = new Set<string>();
  const lines = secrets.flatMap((s) => (s.includes("\n") ? s.split("\n").map((l) => l.trim()) : [])).filter((l) => l.length >= MIN_SECRET_LINE_LENGTH);
  for (const s of [...secrets, ...lines]) {
    if (s.length < MIN_SECRET_LENGTH) continue;
    forms.add(s);
    forms.add(encodeURIComponent(s));
    // A form body (`application/x-www-form-urlencoded`: an OAuth token request) encodes a space as `+` and `!'()~` too.
    forms.add(new URLSearchParams({ s }).toString().slice(2));
    forms.add(JSON.stringify(s).slice(1, -1));
  }
  // Whole secrets only: the lines of a private key (26 of them) would triple the forms every text is searched for, and
  // an encoded key is found whole (a wrapped block is joined before it is searched).
  for (const s of secrets) for (const form of encodedForms(s)) encoded.add(form);
  for (const form of encoded) forms.add(form);
  return { forms: [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length), encoded: [...encoded] };
}
