/**
 * Secrets shorter than this (in UTF-8 bytes) get no encoded forms. From 8 bytes on, the shortest form matched is 10
 * base64 characters (60 bits) or 16 hex digits (64 bits): a stretch of text or of another encoded blob (an image in a
 * result) matches one by chance about once in 10^18 places, so hiding these forms garbles nothing. A shorter secret's
 * forms would be as short as 4 characters, which turn up in any long base64 blob. Tool results only hide secrets of 8
 * characters or more anyway (see result-secrets.ts).
 */
export const MIN_ENCODED_SECRET_BYTES = 8;

/**
 * The base64 and hex forms of `secret` as they show inside a longer encoded text (`base64 .env`, `xxd -p`, a data
 * URL, a basic-auth header): for base64 (standard and URL-safe), one form per alignment of the secret's first byte
 * to the 3-byte groups (offset 0, 1 or 2), each only the characters that depend on the secret's bytes alone, as the
 * characters at either end also hold bits of the bytes around it; for hex, the lower and upper case digits. Empty for
 * a secret shorter than MIN_ENCODED_SECRET_BYTES. Never throws.
 */
export function encodedForms(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  if (bytes.length < MIN_ENCODED_SECRET_BYTES) return [];
  const out = new Set<string>();
  for (const offset of [0, 1, 2]) {
    // `offset` bytes before it and two after, so every character that depends on the secret alone is encoded.
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(2)]).toString("base64");
    const stable = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    out.add(stable);
    out.add(stable.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  const hex = bytes.toString("hex");
  out.add(hex);
  out.add(hex.toUpperCase());
  return [...out];
}

/** One character of base64 (standard or URL-safe, padding included), which hex digits are too. */
const B64 = "[A-Za-z0-9+/=_-]";

/**
 * A line break: as written (`\n`, `\r\n`) or escaped, once or more (a result's data is redacted as its JSON, where a
 * file's `\n` escape, as in a JSON or `.env` file, is `\\n`), with the blanks that indent the next line (a YAML block
 * scalar, an indented PEM block).
 */
const BREAK = String.raw`(?:\r?\n|(?:\\+r)?\\+n)[ \t]*`;

/**
 * A block of encoded lines: `base64` wraps its output at 76 characters, `xxd -p` at 60, PEM at 64, so a secret's
 * encoded form may be cut by a line break. Starts at the beginning of a run (the lookbehind keeps the scan linear).
 */
const WRAPPED = new RegExp(`(?<!${B64})${B64}{16,}(?:${BREAK}${B64}+)+`, "g");

/**
 * `text` with each block of wrapped encoded lines (see WRAPPED) that holds one of `forms` once its line breaks are
 * taken out replaced by `hide` of that joined block (so the block shows on one line, with `***`). Blocks holding none
 * stay as they are. Never throws.
 */
export function hideInWrappedBlocks(text: string, forms: readonly string[], hide: (joined: string) => string): string {
  if (!forms.length || !(text.includes("\n") || text.includes("\\n"))) return text;
  return text.replace(WRAPPED, (block) => {
    const joined = block.replace(new RegExp(BREAK, "g"), "");
    return forms.some((f) => joined.includes(f)) ? hide(joined) : block;
  });
}
