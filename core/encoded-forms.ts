/**
 * Secrets shorter than this (in UTF-8 bytes) get no encoded forms. From 8 bytes on, the shortest form matched is 10
 * base64 characters (60 bits), 12 base32 characters (60 bits) or 16 hex digits (64 bits): a stretch of text or of another encoded blob (an image in a
 * result) matches one by chance about once in 10^18 places, so hiding these forms garbles nothing. A shorter secret's
 * forms would be as short as 4 characters, which turn up in any long base64 blob. Tool results only hide secrets of 8
 * characters or more anyway (see result-secrets.ts).
 */
export const MIN_ENCODED_SECRET_BYTES = 8;

/**
 * The base64, base32 and hex forms of `secret` as they show inside a longer encoded text (`base64 .env`, `xxd -p`, a data
 * URL, a basic-auth header): for base64 (standard and URL-safe), one form per alignment of the secret's first byte
 * to the 3-byte groups (offset 0, 1 or 2), each only the characters that depend on the secret's bytes alone, as the
 * characters at either end also hold bits of the bytes around it; the same for base32 (RFC 4648's alphabet, as
 * coreutils' `base32` prints it, at each of the five alignments to its 5-byte groups); for hex, the lower and upper
 * case digits. Empty for a secret shorter than MIN_ENCODED_SECRET_BYTES. Never throws.
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
  for (let offset = 0; offset < 5; offset++) {
    // As for base64, with base32's 5-byte groups: `offset` bytes before it and four after.
    const encoded = base32(Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(4)]));
    out.add(encoded.slice(Math.ceil((8 * offset) / 5), Math.floor((8 * (offset + bytes.length)) / 5)));
  }
  const hex = bytes.toString("hex");
  out.add(hex);
  out.add(hex.toUpperCase());
  return [...out];
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** `bytes` in base32 (RFC 4648), without padding. */
function base32(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits ? out + BASE32[(value << (5 - bits)) & 31] : out;
}
