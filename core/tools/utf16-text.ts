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

/** How an existing text file's bytes begin: a UTF-16 encoding with its mark, UTF-8 with a byte order mark, or neither. */
export type StoredEncoding = Utf16Encoding | "utf-8-bom" | undefined;

/**
 * The encoding a file announces with its byte order mark, from its first bytes (`start`) and its `size`: UTF-16 only
 * when its size is even and `start` decodes as UTF-16 (as utf16Text reads the whole file), so a binary file that
 * happens to begin with FF FE is neither. Pure; never throws.
 */
export function storedEncoding(start: Buffer, size: number): StoredEncoding {
  if (start[0] === 0xef && start[1] === 0xbb && start[2] === 0xbf) return "utf-8-bom";
  if (size % 2 !== 0) return undefined;
  let even = start.subarray(0, start.length - (start.length % 2));
  // a prefix may end between the two halves of a surrogate pair: leave the high half out
  const last = even.length >= 4 ? (start[1] === 0xfe ? even.readUInt16LE(even.length - 2) : even.readUInt16BE(even.length - 2)) : 0;
  if (size > start.length && last >= 0xd800 && last <= 0xdbff) even = even.subarray(0, even.length - 2);
  return utf16Text(even)?.encoding;
}

/** `text` as the bytes of a file stored in `encoding` (UTF-8 without a mark when undefined), one byte order mark first. Pure. */
export function encodeStored(text: string, encoding: StoredEncoding): Buffer {
  if (encoding === undefined) return Buffer.from(text, "utf8");
  const body = text.startsWith("\ufeff") ? text.slice(1) : text;
  return encoding === "utf-8-bom" ? Buffer.from("\ufeff" + body, "utf8") : encodeUtf16(body, encoding);
}
