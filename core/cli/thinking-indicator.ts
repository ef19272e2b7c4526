import { palette } from "./palette.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const LABEL = "thinking…";

/**
 * A "thinking…" line shown while keel waits for the model, erased before anything else is written
 * (streamed text, a tool line, a prompt). A spinner when `animate` is on (a terminal with colours);
 * plain static text otherwise. Only for terminals: callers make none for other output.
 */
export class ThinkingIndicator {
  private shown = false;
  private frame = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly animate: boolean,
  ) {}

  /** Shows the indicator (nothing when it is already shown). The line must be empty: callers end partial lines first. */
  show(): void {
    if (this.shown) return;
    this.shown = true;
    this.frame = 0;
    this.out.write(this.text());
    if (!this.animate) return;
    this.timer = setInterval(() => {
      this.frame = (this.frame + 1) % FRAMES.length;
      this.out.write(`\r${this.text()}`);
    }, 100);
    // a spinner never keeps the process alive
    this.timer.unref();
  }

  /** Erases the indicator, leaving the cursor at the start of the empty line (nothing when it is not shown). */
  hide(): void {
    if (!this.shown) return;
    this.shown = false;
    clearInterval(this.timer);
    this.timer = undefined;
    this.out.write(this.animate ? "\r\u001b[2K" : `\r${" ".repeat(LABEL.length + 2)}\r`);
  }

  private text(): string {
    return this.animate ? palette(true).dim(`${FRAMES[this.frame]} ${LABEL}`) : `${LABEL}`;
  }
}
