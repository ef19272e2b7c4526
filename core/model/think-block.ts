const OPEN = "<think>";
const CLOSE = "</think>";

/**
 * Takes a leading `<think>…</think>` block out of an answer's content, piece by piece as it streams:
 * local reasoning models (Qwen3, DeepSeek-R1 distills, QwQ) served without a reasoning parser
 * (llama.cpp without `--reasoning-format`, vLLM without `--reasoning-parser`, older Ollama, LM
 * Studio) write their reasoning into the content that way. The block is neither shown nor kept
 * as the answer (nor sent back in history: those models' templates drop it there anyway), and the
 * blank lines after it go with it. Content that does not begin with `<think>` (after blanks) passes
 * unchanged, and so does a block that never closes (the answer is cut, or it was no block): it is
 * given back by `end()`. Linear in what is added. One instance per answer.
 */
export class ThinkBlock {
  private state: "undecided" | "thinking" | "answer" = "undecided";
  /** Content held back while undecided or thinking. */
  private held = "";
  /** How many blanks `held` begins with, while undecided. */
  private blanks = 0;
  /** Where the search for `</think>` in `held` goes on from. */
  private scanned = 0;
  /** The block closed and no answer text followed yet: blanks are dropped. */
  private trimming = false;

  /** Adds a piece of content; returns the part of it to show and keep now (maybe ""). */
  add(piece: string): string {
    if (this.state === "answer") return this.trim(piece);
    this.held += piece;
    if (this.state === "undecided") {
      // Blanks before `<think>` are skipped once each, not again with every piece (a stream of blanks stays linear).
      while (this.blanks < this.held.length && /\s/.test(this.held[this.blanks]!)) this.blanks++;
      const start = this.held.slice(this.blanks, this.blanks + OPEN.length);
      if (start.length < OPEN.length && OPEN.startsWith(start)) return "";
      if (start !== OPEN) return this.release();
      this.state = "thinking";
      this.scanned = this.blanks + OPEN.length;
    }
    const end = this.held.indexOf(CLOSE, this.scanned);
    if (end === -1) {
      this.scanned = Math.max(this.scanned, this.held.length - CLOSE.length + 1);
      return "";
    }
    const after = this.held.slice(end + CLOSE.length);
    this.held = "";
    this.state = "answer";
    this.trimming = true;
    return this.trim(after);
  }

  /** At the end of the answer: content still held back (a block that never closed), to show and keep; "" otherwise. */
  end(): string {
    return this.state === "answer" ? "" : this.release();
  }

  private release(): string {
    const out = this.held;
    this.held = "";
    this.state = "answer";
    return out;
  }

  private trim(piece: string): string {
    if (!this.trimming) return piece;
    const rest = piece.trimStart();
    if (rest) this.trimming = false;
    return rest;
  }
}
