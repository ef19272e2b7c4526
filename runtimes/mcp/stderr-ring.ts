/** Keeps the last `maxBytes` of a server's stderr (never printed during normal work). */
export class StderrRing {
  private chunks: string[] = [];
  private size = 0;
  /** Total bytes ever written (including dropped ones). */
  total = 0;

  constructor(private readonly maxBytes = 16 * 1024) {}

  /** Appends text, dropping the oldest bytes beyond the bound. */
  push(text: string): void {
    this.total += text.length;
    this.chunks.push(text);
    this.size += text.length;
    while (this.size > this.maxBytes && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
    if (this.size > this.maxBytes) {
      this.chunks = [this.chunks[0]!.slice(-this.maxBytes)];
      this.size = this.chunks[0]!.length;
    }
  }

  /** The last `lines` lines (default 20), trimmed; empty string when nothing was written. */
  tail(lines = 20): string {
    const text = this.chunks.join("");
    return text.split("\n").filter((l) => l.trim() !== "").slice(-lines).join("\n");
  }

  /** Forgets everything (on restart). */
  clear(): void {
    this.chunks = [];
    this.size = 0;
  }
}
