/** One secret as bytes in one encoding, and the `*` of the same encoding and length that replaces it. */
interface ByteForm {
  needle: Buffer;
  mask: Buffer;
}

/**
 * Hides secrets in bytes that keel saves as they are (a binary file `read_file` keeps as an artifact, a command's
 * binary stdout, an MCP blob): each secret as UTF-8, UTF-16LE and UTF-16BE, at any byte offset, is replaced by `*`
 * in the same encoding and of the same length, so the rest of the file keeps its offsets. A UTF-16 `.env` without a
 * byte order mark is binary to keel, and its `GITHUB_TOKEN=…` would otherwise reach `.keel/artifacts` as it is.
 * Each form is found with `Buffer.indexOf`: a few native passes per secret over bytes already bounded by the tool's
 * cap. Matches are searched in the original bytes and written into one copy, so secrets that overlap are both hidden whole.
 */
export class SecretBytes {
  private readonly forms: ByteForm[];

  /** `secrets` are the values to hide (already judged strong by the caller); empty ones are ignored. */
  constructor(secrets: readonly string[]) {
    const forms = new Map<string, ByteForm>();
    for (const s of secrets) {
      if (!s) continue;
      const utf16le = Buffer.from(s, "utf16le");
      const star16le = Buffer.from("*".repeat(s.length), "utf16le");
      const add = (needle: Buffer, mask: Buffer) => forms.set(needle.toString("hex"), { needle, mask });
      add(Buffer.from(s, "utf8"), Buffer.alloc(Buffer.byteLength(s, "utf8"), "*"));
      add(utf16le, star16le);
      add(Buffer.from(utf16le).swap16(), Buffer.from(star16le).swap16());
    }
    this.forms = [...forms.values()];
  }

  /** `bytes` with every form of every secret replaced (see the class), and how many were; `bytes` itself when none was. */
  hide(bytes: Buffer): { bytes: Buffer; count: number } {
    let out: Buffer | undefined;
    let count = 0;
    for (const { needle, mask } of this.forms) {
      for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) {
        out ??= Buffer.from(bytes);
        mask.copy(out, at);
        count++;
      }
    }
    return { bytes: out ?? bytes, count };
  }
}
