import { REDACTED, secretDumpRedactor, secretLinesOf, secretRedactor } from "./redact-secrets.js";
import { SecretBytes } from "./secret-bytes.js";
import { envValueAsUrl, looksSecret } from "./secret-env.js";
import { secretShapesIn } from "./secret-words.js";
import { urlSecrets } from "./url-secrets.js";

/** Shorter values are not hidden from tool results: a result is data, and `***` for every short match would garble it. */
export const MIN_RESULT_SECRET_LENGTH = 8;

/** One plain word (letters only) or a plain number (`Authorization`, `production`, `20240101`): never a credential. */
const PLAIN_VALUE = /^(?:\p{L}+|\d+)$/u;

/** True when `value` is one plain word (letters only) or a plain number: never a credential (see PLAIN_VALUE). */
export function isPlainValue(value: string): boolean {
  return PLAIN_VALUE.test(value);
}

/** An absolute path or a home-relative one, without spaces (`/home/me/.ssh/id_ed25519`): a place, never a credential. */
const PATH_VALUE = /^~?\/\S*$/;

/**
 * The values of `values` strong enough to hide wherever they appear in a tool's result: at least
 * MIN_RESULT_SECRET_LENGTH characters (trimmed), neither one plain word or number nor a path. Never throws.
 */
export function strongSecrets(values: readonly (string | undefined)[]): string[] {
  const out = new Set<string>();
  for (const v of values) {
    const s = v?.trim();
    if (s && s.length >= MIN_RESULT_SECRET_LENGTH && !isPlainValue(s) && !PATH_VALUE.test(s)) out.add(s);
  }
  return [...out];
}

/**
 * The credentials in an environment: the values of its variables that look secret in keel's one vocabulary
 * (`looksSecret`: `GITHUB_TOKEN`, `OPENAI_API_KEY`, `DATABASE_URL` with a password, a `ghp_…` value under any
 * name), with a URL's password (not its user name, see `urlCredentials`), a `Bearer` token or a connection string's key also on their own; strong ones only
 * (`strongSecrets`). Never throws.
 */
export function environmentSecrets(env: NodeJS.ProcessEnv): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !looksSecret(name, value)) continue;
    found.push(value, ...secretShapesIn(value), ...urlCredentials(envValueAsUrl(name, value)));
  }
  return strongSecrets(found);
}

/**
 * The credentials in `value` when it is a URL (`urlSecrets`), without the user name of one that has a password: in
 * `postgres://app_user:pw@db/app` the name is the public half (it is in every migration's `GRANT … TO app_user`,
 * which would read `TO ***`); in `https://TOKEN@host` it is the credential and stays.
 */
function urlCredentials(value: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return [];
  const found = urlSecrets(value);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return found;
  }
  if (!url.password || !url.username) return found;
  const name = new Set([url.username, safeDecode(url.username)]);
  const kept = new Set([url.password, safeDecode(url.password)]);
  return found.filter((s) => !name.has(s) || kept.has(s));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** What hides secrets in one result: its text and its structured data. */
export interface ResultRedactor {
  /** `text` with every secret replaced by `***`. */
  text(text: string): string;
  /**
   * `data` with every secret replaced by `***` in its strings and keys: the same value when it holds none, else a
   * copy (made from its JSON), or null when the copy is not valid JSON (a secret spanning its structure: fail closed).
   */
  data(data: unknown): unknown;
  /**
   * Bytes saved as they are (a binary artifact) with every secret hidden: as UTF-8, UTF-16LE and UTF-16BE replaced by
   * `*` of the same encoding and length (see SecretBytes; a secret of several lines, each of its lines too), then read as latin1 by `text` (its encoded forms: base64,
   * hex… of an ASCII secret, as `***`). `bytes` itself when it holds none. Never throws.
   */
  bytes(bytes: Buffer): Buffer;
}

/**
 * The secrets keel hides from every tool result before the model, the session, artifacts or an afterResult hook
 * see it (the pipeline's normalize step): the strong credentials of keel's environment (`environmentSecrets`),
 * values runtimes add (the model's API key, an MCP server's credentials and OAuth tokens), and what `sources`
 * report at the time of the call (tokens change on a refresh). One instance per host.
 */
export class ResultSecrets {
  /** Values added so far; the environment's join them on first use (not worked out for commands that call no tool). */
  private readonly added: string[] = [];
  private fixed: Set<string> | undefined;
  private readonly sources: (() => readonly string[])[] = [];
  private cached: { key: string; redactor: ResultRedactor | undefined } | undefined;

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** Hides these values too (those `strongSecrets` keeps). */
  addValues(values: readonly (string | undefined)[]): void {
    const strong = strongSecrets(values);
    if (this.fixed) {
      const before = this.fixed.size;
      for (const s of strong) this.fixed.add(s);
      if (this.fixed.size !== before) this.cached = undefined;
    } else this.added.push(...strong);
  }

  /** Hides what `source` returns at each call too (those `strongSecrets` keeps); it must not throw. */
  addSource(source: () => readonly string[]): void {
    this.sources.push(source);
    this.cached = undefined;
  }

  /** The redactor for the secrets known now, or undefined when there are none (nothing to do). */
  redactor(): ResultRedactor | undefined {
    this.fixed ??= new Set([...environmentSecrets(this.env), ...this.added]);
    // Asked on every call: nothing is allocated while the sources report nothing (the common case).
    let reported: string[] | undefined;
    for (const source of this.sources) {
      const values = source();
      if (values.length) (reported ??= []).push(...values);
    }
    const dynamic = reported ? strongSecrets(reported) : [];
    const key = dynamic.length ? dynamic.join("\0") : "";
    if (this.cached?.key === key) return this.cached.redactor;
    const all = [...new Set([...this.fixed, ...dynamic])];
    this.cached = { key, redactor: all.length ? makeRedactor(all) : undefined };
    return this.cached.redactor;
  }
}

function makeRedactor(secrets: readonly string[]): ResultRedactor {
  const text = secretRedactor(secrets);
  const dumps = secretDumpRedactor(secrets);
  // A private key's lines on their own too: a UTF-16 file with CRLF line ends holds none of it whole.
  const raw = new SecretBytes([...secrets, ...secretLinesOf(secrets)]);
  return {
    text,
    bytes(bytes) {
      const hidden = raw.hide(bytes).bytes;
      const latin1 = hidden.toString("latin1");
      const shown = text(latin1);
      return shown === latin1 ? hidden : Buffer.from(shown, "latin1");
    },
    data(value) {
      if (value === null || typeof value !== "object") return typeof value === "string" ? text(value) : value;
      let json: string | undefined;
      try {
        json = JSON.stringify(value);
      } catch {
        return null; // cannot be checked (a cycle, a BigInt): not passed on
      }
      if (json === undefined) return value;
      // A dump's lines are lines in its own string only (in the JSON they are `\n` escapes).
      const data = mapStrings(value, dumps);
      if (data !== value) json = JSON.stringify(data);
      const hidden = text(json);
      if (hidden === json) return data;
      try {
        return JSON.parse(hidden) as unknown;
      } catch {
        return null;
      }
    },
  };
}

/** `value` with `map` applied to its strings (not keys): `value` itself when that changes none, else a copy. */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (value === null || typeof value !== "object") return value;
  let changed = false;
  const entries = Object.entries(value).map(([k, v]) => {
    const mapped = mapStrings(v, map);
    if (mapped !== v) changed = true;
    return [k, mapped] as const;
  });
  if (!changed) return value;
  return Array.isArray(value) ? entries.map(([, v]) => v) : Object.fromEntries(entries);
}

/**
 * `content` and `data` of one result with the secrets hidden, and the note keel adds to the text when it hid any
 * (so the model neither asks for them nor writes `***` back into a file). Never throws.
 */
export function hideSecrets(redactor: ResultRedactor, content: string, data: unknown): { content: string; data: unknown } {
  const hidden = redactor.text(content);
  const hiddenData = redactor.data(data);
  const count = occurrences(hidden) - occurrences(content);
  if (count > 0) return { content: `${hidden}\n${hiddenSecretsNote(count)}`, data: hiddenData };
  // Hidden in the structured data only: said in the text too.
  if (hiddenData !== data) return { content: `${hidden}\n${hiddenSecretsNote(1)}`, data: hiddenData };
  return { content, data };
}

function occurrences(text: string): number {
  let n = 0;
  for (let at = text.indexOf(REDACTED); at >= 0; at = text.indexOf(REDACTED, at + REDACTED.length)) n++;
  return n;
}

/** How the note `hiddenSecretsNote` makes begins. */
export const HIDDEN_NOTE_START = "[keel hid ";

/** The note keel adds to a result's text when it hid `count` secrets in it. */
export function hiddenSecretsNote(count: number): string {
  return `${HIDDEN_NOTE_START}${count === 1 ? "a secret value" : `${count} secret values`} as ${REDACTED} (a credential from your environment or configuration). Do not write ${REDACTED} back into a file: edit around it.]`;
}
