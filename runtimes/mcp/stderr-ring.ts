/**
 * Keeps the last `maxBytes` of a server's stderr (never printed during normal work). Everything
 * it hands out has passed `redact` (the server's secrets: a child may print its own argv or env).
 */
export class StderrRing {
  private chunks: string[] = [];
  private size = 0;
  /** True once bytes were dropped since the last clear (the first kept line may be a fragment). */
  private dropped = false;
  /** Total bytes ever written (including dropped ones). */
  total = 0;

  constructor(
    private readonly redact: (text: string) => string = (text) => text,
    private readonly maxBytes = 16 * 1024,
  ) {}

  /** Appends text, dropping the oldest bytes beyond the bound. */
  push(text: string): void {
    this.total += text.length;
    this.chunks.push(text);
    this.size += text.length;
    while (this.size > this.maxBytes && this.chunks.length > 1) {
      this.size -= this.chunks.shift()!.length;
      this.dropped = true;
    }
    if (this.size > this.maxBytes) {
      this.dropped = true;
      this.chunks = [this.chunks[0]!.slice(-this.maxBytes)];
      this.size = this.chunks[0]!.length;
    }
  }

  /**
   * The last `lines` lines (default 20), redacted, blank lines left out; empty string when nothing was written. The
   * kept text is redacted as a whole before it is cut to lines, so a secret of many lines (a private key) is `***`
   * however many lines are shown. Once bytes were dropped the first kept line may be a fragment (of a secret, too):
   * it is left out.
   */
  tail(lines = 20): string {
    let text = this.chunks.join("");
    if (this.dropped) text = text.slice(text.indexOf("\n") + 1 || text.length);
    return this.redact(text)
      .split("\n")
      .filter((l) => l.trim() !== "")
      .slice(-lines)
      .join("\n");
  }

  /** Forgets everything (on restart). */
  clear(): void {
    this.chunks = [];
    this.size = 0;
    this.dropped = false;
  }
}
