/**
 * The chat's own output, held while a question is open on the terminal. A server's elicitation can
 * come at any time, and the turn goes on while it waits for an answer: what the turn wrote meanwhile
 * landed on the question's line — or erased it (the thinking indicator clears its line), leaving
 * the user nothing to answer. Held output is written, in order, when the last question closes.
 */
export class HeldOutput {
  private readonly held: string[] = [];
  private holds = 0;
  /** A stream view for writers that take one (only `write` is used). */
  readonly stream: NodeJS.WritableStream;

  constructor(private readonly out: NodeJS.WritableStream) {
    this.stream = { write: (chunk: string) => this.write(chunk) } as unknown as NodeJS.WritableStream;
  }

  /** Whether a question is open (output is held). */
  get holding(): boolean {
    return this.holds > 0;
  }

  /** Writes `chunk` now, or once no question is open. */
  write(chunk: string): boolean {
    if (this.holds > 0) this.held.push(chunk);
    else this.out.write(chunk);
    return true;
  }

  /** A question opens (or waits to): output is held until it closes. */
  hold(): void {
    this.holds++;
  }

  /** A question closed: when it was the last one, what was held is written. */
  release(): void {
    this.holds = Math.max(0, this.holds - 1);
    if (this.holds === 0 && this.held.length) this.out.write(this.held.splice(0).join(""));
  }
}
