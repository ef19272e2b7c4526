import { dumpText } from "./dump-text.js";
import { encodedForms, MIN_ENCODED_SECRET_BYTES } from "./encoded-forms.js";
import { joinedText, withoutBreaks } from "./joined-text.js";
import { FormIndex } from "./form-index.js";
import { hideRanges, type Range } from "./secret-ranges.js";

/** What a redacted secret is replaced with. */
export const REDACTED = "***";

/** Shorter values are not redacted: replacing one or two characters would mangle ordinary text and hide nothing. */
export const MIN_SECRET_LENGTH = 3;

/** A line of a secret of several lines (a private key) at least this long is redacted on its own too (see `secretLine`). */
export const MIN_SECRET_LINE_LENGTH = 8;

/** PEM armour (`-----BEGIN RSA PRIVATE KEY-----`, `-----END …-----`) and the fixed header of an encrypted PEM key: the same in every key. */
const PEM_FIXED_LINE = /^(?:-----(?:BEGIN|END) [A-Z0-9 ]+-----|Proc-Type: \d+,[A-Z-]+)$/;

/**
 * A line of a secret made of fewer different characters than this, none of them a letter or digit (`========`,
 * `--------`, `| --- |`), is a rule, no secret by itself. One with a letter or digit is hidden however few its
 * characters: a secret of several lines can be a list of numeric codes (`1212 1212`).
 */
const MIN_SECRET_LINE_CHARS = 5;

/** No letter or digit (in any script). */
const NO_LETTER_OR_DIGIT = /^[^\p{L}\p{N}]*$/u;

/**
 * Whether a line of a secret of several lines (trimmed) is hidden wherever it appears on its own: long enough,
 * not PEM armour or a fixed PEM header, and not a rule (see MIN_SECRET_LINE_CHARS) — so a secret private key does not
 * turn every `-----BEGIN PRIVATE KEY-----` line of a document or test fixture into `***`; its body lines still are.
 */
function secretLine(line: string): boolean {
  if (line.length < MIN_SECRET_LINE_LENGTH || PEM_FIXED_LINE.test(line)) return false;
  return new Set(line).size >= MIN_SECRET_LINE_CHARS || !NO_LETTER_OR_DIGIT.test(line);
}

/**
 * `text` with every secret replaced by `***`: as written, URL-encoded (as in a URL and as in a form
 * body) and JSON-escaped (the forms an error message, a URL or a serialized object shows it in), and, for secrets of
 * MIN_ENCODED_SECRET_BYTES or more, base64-encoded (standard and URL-safe, at any alignment), base32-encoded,
 * hex-encoded (see encoded-forms.ts) and reversed (`rev`), in the columns of a dump (`xxd`, `hexdump`, `od`: see
 * dump-text.ts), and across line breaks (see joined-text.ts: output wrapped at any width); a secret that contains
 * another, or overlapping forms, are replaced whole. Each line of a secret of several lines that could be a secret by
 * itself (see `secretLine`: not PEM armour) counts as a secret too, so text cut inside such a secret (the end of a private
 * key) shows none of its body lines. Secrets shorter than MIN_SECRET_LENGTH are ignored. Never throws.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  if (!secrets.length || !text) return text;
  return secretRedactor(secrets)(text);
}

/**
 * `redactSecrets` with these `secrets` as a function, their forms worked out once (for many texts: a tool list, a
 * value's strings). Linear in the text for a given set of secrets. Never throws.
 */
export function secretRedactor(secrets: readonly string[]): (text: string) => string {
  if (!secrets.length) return (text) => text;
  const plan = planOf(secrets);
  return (text) => {
    if (!text) return text;
    const ranges: Range[] = [];
    plan.short.find(text, ranges);
    const joined = joinedText(text);
    if (joined) {
      plan.edge.find(text, ranges);
      if (text.includes("\\")) plan.edgeEscape.find(text, ranges);
      plan.joined.find(joined.text, ranges, joined.place);
    } else plan.joined.find(text, ranges);
    // A dump of one line too: hex pairs apart by blanks (`hexdump -e '/1 "%02x "'` ends with no line break).
    findInDumps(text, plan, ranges);
    return hideRanges(text, ranges, REDACTED);
  };
}

/**
 * `redactSecrets` for a set of secrets that changes now and then (a server's, which grows with each OAuth token it
 * sends): the redactor is built again only when the secrets differ from the last call's. One per owner. Never throws.
 */
export function redactorForChangingSecrets(): (text: string, secrets: readonly string[]) => string {
  let last: { key: string; redact: (text: string) => string } | undefined;
  return (text, secrets) => {
    if (!secrets.length || !text) return text;
    const key = secrets.join("\0");
    if (last?.key !== key) last = { key, redact: secretRedactor(secrets) };
    return last.redact(text);
  };
}

/**
 * `secretRedactor` for dumps only (`xxd`, `hexdump`, `od` output, see dump-text.ts): for the strings of a structured
 * value, which the full redactor sees as JSON, where a dump's lines are not lines. Never throws.
 */
export function secretDumpRedactor(secrets: readonly string[]): (text: string) => string {
  const plan = planOf(secrets);
  return (text) => {
    const ranges: Range[] = [];
    findInDumps(text, plan, ranges);
    return hideRanges(text, ranges, REDACTED);
  };
}

/** Finds the secrets' bytes in the dumps in `text`, and the secrets in their ASCII columns. */
function findInDumps(text: string, plan: Plan, ranges: Range[]): void {
  // The shortest dump of MIN_ENCODED_SECRET_BYTES bytes: hex pairs apart by one blank.
  if (plan.bytes.empty || text.length < 3 * MIN_ENCODED_SECRET_BYTES - 1) return;
  const dump = dumpText(text);
  if (!dump) return;
  plan.bytes.find(dump.bytes, ranges, dump.placeBytes);
  plan.raw.find(dump.gutter, ranges, dump.placeGutter);
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

/**
 * The lines of the secrets of several lines (trimmed) that are hidden wherever they appear on their own (see
 * `secretLine`: a private key's body lines, not its PEM armour). Never throws.
 */
export function secretLinesOf(secrets: readonly string[]): string[] {
  return secrets.flatMap((s) => (s.includes("\n") ? s.split("\n").map((l) => l.trim()) : [])).filter(secretLine);
}

/** What one redactor looks for. */
interface Plan {
  /** Forms searched for in the text as it is only: the short ones. */
  short: FormIndex;
  /** Forms searched for in the text without its line breaks (joined-text.ts), which holds the text's own matches too. */
  joined: FormIndex;
  /** Forms a line break's removal could cut into, searched for in a text with line breaks as it is too. */
  edge: FormIndex;
  /** The same for an escaped break (`\\n` before a form beginning with `n`): only in a text with a backslash. */
  edgeEscape: FormIndex;
  /** The secrets (and lines of them) of MIN_ENCODED_SECRET_BYTES or more as written, for a dump's ASCII column. */
  raw: FormIndex;
  /** Their UTF-8 bytes as latin1 characters, for the bytes a dump shows. */
  bytes: FormIndex;
}

/** Forms shorter than this are not searched for across line breaks: joined lines would spell a short one by chance. */
const MIN_JOINED_FORM_LENGTH = 8;

/** A form that taking a line break out could cut into (it holds a line break or begins with the blanks after one). */
const BREAK_EDGE = /[\r\n]|^[ \t]/;

/** The same for an escaped line break (see joined-text.ts): a form holding a backslash or beginning with `n` or `r`. */
const ESCAPE_EDGE = /\\|^[nr]/;

/** What `secretRedactor` looks for (see `redactSecrets`). */
function planOf(secrets: readonly string[]): Plan {
  const forms = new Set<string>();
  const raw = new Set<string>();
  const lines = secretLinesOf(secrets);
  for (const s of [...secrets, ...lines]) {
    if (s.length < MIN_SECRET_LENGTH) continue;
    forms.add(s);
    forms.add(encodeURIComponent(s));
    // A form body (`application/x-www-form-urlencoded`: an OAuth token request) encodes a space as `+` and `!'()~` too.
    forms.add(new URLSearchParams({ s }).toString().slice(2));
    forms.add(JSON.stringify(s).slice(1, -1));
    // Python's `json.dumps` writes each non-ASCII character as `\uXXXX`.
    forms.add(
      JSON.stringify(s)
        .slice(1, -1)
        .replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
    );
    if (Buffer.byteLength(s) >= MIN_ENCODED_SECRET_BYTES) raw.add(s);
  }
  // Whole secrets only: the lines of a private key (26 of them) would triple the forms every text is searched for, and
  // an encoded key is found whole (line breaks are taken out before it is searched).
  for (const s of secrets) {
    for (const form of encodedForms(s)) forms.add(form);
    if (Buffer.byteLength(s) >= MIN_ENCODED_SECRET_BYTES) forms.add([...s].reverse().join(""));
  }
  const short: string[] = [];
  const edge: string[] = [];
  const edgeEscape: string[] = [];
  const joined: string[] = [];
  for (const form of forms) {
    if (form.length < MIN_SECRET_LENGTH) continue;
    const flat = withoutBreaks(form);
    if (flat.length < MIN_JOINED_FORM_LENGTH) short.push(form);
    else {
      joined.push(flat);
      if (BREAK_EDGE.test(form)) edge.push(form);
      else if (ESCAPE_EDGE.test(form)) edgeEscape.push(form);
    }
  }
  return {
    short: new FormIndex(short),
    joined: new FormIndex(joined),
    edge: new FormIndex(edge),
    edgeEscape: new FormIndex(edgeEscape),
    raw: new FormIndex([...raw]),
    bytes: new FormIndex([...raw].map((s) => Buffer.from(s).toString("latin1"))),
  };
}
