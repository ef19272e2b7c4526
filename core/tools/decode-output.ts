/** One output stream of a process: its text, or its raw bytes when they are not text. */
export type DecodedOutput = { text: string; binary?: undefined } | { text?: undefined; binary: Buffer };

/**
 * Decodes process output: valid UTF-8 without NUL bytes is text; anything else (NUL bytes, invalid
 * UTF-8) is binary and returned byte-exact as a Buffer. Never throws.
 */
export function decodeOutput(bytes: Uint8Array | string | undefined): DecodedOutput {
  if (bytes === undefined) return { text: "" };
  if (typeof bytes === "string") return { text: bytes };
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.includes(0)) return { binary: buf };
  try {
    return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(buf) };
  } catch {
    return { binary: buf };
  }
}
