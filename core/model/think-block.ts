const OPEN = "<think>";
const CLOSE = "</think>";
/** Longest line that may still be a closing line (`</think>` with blanks around it): longer ones are not looked at again. */
const MAX_CLOSE_LINE = 64;

/**
 * Takes a leading `<think>…</think>` block out of an answer's content, piece by piece as it streams:
 * local reasoning models (Qwen3, DeepSeek-R1 distills, QwQ) served without a reasoning parser
 * (llama.cpp without `--reasoning-format`, vLLM without `--reasoning-parser`, older Ollama, LM
 * Studio) write their reasoning into the content that way. The block is neither shown nor kept
 * as the answer (nor sent back in history: those models' templates drop it there anyway), and the
 * blank lines after it go with it. Content that does not begin with `<think>` (after blanks) passes
 * unchanged, and so does a block that never closes (the answer is cut, or it was no block): it is
 * given back by `end()`.
 *
 * A model whose chat template already opened the block in the prompt (DeepSeek-R1 distills, QwQ) writes only its
 * end: `reasoning\n</think>\n\nanswer`. With `opened` (the endpoint's answers were seen to begin so), content is held
 * from the start until the first `</think>`, as a block is. Without it (and while `learn`: the client's first answer),
 * such content streams as it comes, and the
 * first `</think>` standing on a line of its own (blanks around it only), with neither `<think>` nor a code fence
 * (```) before it in the content, ends a reasoning that `cut` then counts: it was shown but is not kept. A `</think>`
 * anywhere else (inside a sentence, in backticks, in a code block, after a `<think>` the answer shows) is text of
 * the answer. Linear in what is added. One instance per answer.
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
  /** Watching shown content for a closing line (see the class comment). */
  private watching = true;
  /** The current line of shown content while it may still be a closing line, else undefined. */
  private line: string | undefined = "";
  /** The last characters of shown content (a `<think>` or a fence split across pieces). */
  private recent = "";
  /** Characters of content shown so far. */
  private shownChars = 0;
  /** Characters at the start of the shown content that were reasoning (the closing line and the blanks after it too). */
  private cutChars = 0;
  private cutting = false;
  private closedInside = false;

  /**
   * `opened`: the answer begins inside a reasoning block its template opened (learned from the endpoint's answers before).
   * `learn` false: a closing line in shown content is text like any other (the client's first answer, which a template
   * that opens the block makes begin inside it too, did not: a later `</think>` line is the answer quoting one).
   */
  constructor(
    private readonly opened = false,
    learn = true,
  ) {
    if (opened || !learn) this.watching = false;
    if (opened) this.state = "thinking";
  }

  /** Adds a piece of content; returns the part of it to show now (maybe ""). */
  add(piece: string): string {
    if (this.state === "answer") return this.watch(this.trim(piece));
    this.held += piece;
    if (this.state === "undecided") {
      // Blanks before `<think>` are skipped once each, not again with every piece (a stream of blanks stays linear).
      while (this.blanks < this.held.length && /\s/.test(this.held[this.blanks]!)) this.blanks++;
      const start = this.held.slice(this.blanks, this.blanks + OPEN.length);
      if (start.length < OPEN.length && OPEN.startsWith(start)) return "";
      if (start !== OPEN) return this.watch(this.release());
      this.state = "thinking";
      this.watching = false;
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
    this.watching = false;
    this.trimming = true;
    if (this.opened) this.closedInside = true;
    return this.trim(after);
  }

  /** At the end of the answer: content still held back (a block that never closed), to show; "" otherwise. */
  end(): string {
    if (this.state === "answer") {
      if (this.watching && this.line?.trim() === CLOSE) this.closeAt(this.shownChars);
      return "";
    }
    this.watching = false;
    return this.release();
  }

  /** How many characters at the start of what `add` and `end` returned were reasoning, not answer (0 but for a closing line found in shown content). */
  get cut(): number {
    return this.cutChars;
  }

  /** True when this answer began inside a reasoning block its template opened (a closing line was found, or `opened` and it closed). */
  get beganInside(): boolean {
    return this.closedInside;
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

  /** Looks at shown content for a closing line, a character at a time (constant work each); returns `shown`. */
  private watch(shown: string): string {
    if (!this.watching && !this.cutting) {
      this.shownChars += shown.length;
      return shown;
    }
    for (const ch of shown) {
      this.shownChars += ch.length;
      if (this.cutting) {
        if (/\s/.test(ch)) this.cutChars += ch.length;
        else this.cutting = false;
        continue;
      }
      if (!this.watching) continue;
      this.recent = (this.recent + ch).slice(-OPEN.length);
      if (this.recent.endsWith(OPEN) || this.recent.endsWith("```")) {
        this.watching = false;
        continue;
      }
      if (ch === "\n") {
        if (this.line?.trim() === CLOSE) this.closeAt(this.shownChars);
        else this.line = "";
        continue;
      }
      if (this.line === undefined) continue;
      this.line += ch;
      // Blanks, then a beginning of `</think>` or all of it, then blanks.
      if (!CLOSE.startsWith(this.line.trim()) || this.line.length > MAX_CLOSE_LINE) this.line = undefined;
    }
    return shown;
  }

  /** The reasoning ended with the closing line that ends at `at` (shown characters): blanks after it go with it. */
  private closeAt(at: number): void {
    this.watching = false;
    this.line = undefined;
    this.cutChars = at;
    this.cutting = true;
    this.closedInside = true;
  }
}
