/** A UTF-16 encoding a file announces with its byte order mark. */
export type Utf16Encoding = "utf-16le" | "utf-16be";

/**
 * The text of a file that starts with a UTF-16 byte order mark (FF FE little-endian, FE FF big-endian, as Windows tools
 * such as PowerShell's `>` write them), without the mark; undefined for anything else, or when the bytes after the mark
 * are not valid UTF-16 (an odd length, a lone surrogate): such a file stays binary. Pure; never throws.
 */
export function utf16Text(bytes: Buffer): { text: string; encoding: Utf16Encoding } | undefined {
  if (bytes.length < 2 || bytes.length % 2 !== 0) return undefined;
  const encoding: Utf16Encoding | undefined =
    bytes[0] === 0xff && bytes[1] === 0xfe ? "utf-16le" : bytes[0] === 0xfe && bytes[1] === 0xff ? "utf-16be" : undefined;
  if (encoding === undefined) return undefined;
  try {
    return { text: new TextDecoder(encoding, { fatal: true }).decode(bytes), encoding };
  } catch {
    return undefined;
  }
}

/** `text` as the bytes of a file in `encoding`, byte order mark first. Pure. */
export function encodeUtf16(text: string, encoding: Utf16Encoding): Buffer {
  const body = Buffer.from("\ufeff" + text, "utf16le");
  return encoding === "utf-16be" ? body.swap16() : body;
}
