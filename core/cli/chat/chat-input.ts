import { createInterface, emitKeypressEvents } from "node:readline";
import { oneQuestionAtATime } from "../terminal-question.js";

/** Watches the terminal for Ctrl-C while a turn runs (nothing is echoed meanwhile). */
export interface InterruptWatch {
  /** Takes the terminal back after something else read from it (an approval prompt closes its reader). */
  rearm(): void;
  /** Stops watching and gives the terminal back to cooked mode; with `keepReading`, leaves the terminal as it is (a question still reads it). */
  stop(keepReading?: boolean): void;
}

/** Bracketed paste on / off (xterm): the terminal marks pasted text, so its newlines are not Enter. */
const PASTE_ON = "\u001b[?2004h";
const PASTE_OFF = "\u001b[?2004l";

/**
 * The chat's prompt line on a terminal (node:readline): line editing, a history of this process's
 * prompts (↑/↓), Ctrl-C clears a typed line and, on an empty line pressed twice, leaves, as Ctrl-D
 * does. Pasted text is one prompt, newlines and all (bracketed paste, on terminals other than
 * `TERM=dumb`): its lines show under the first, and Enter after the paste sends it. Between prompts
 * the terminal stays in raw mode only while `watch` runs, so Ctrl-C during a turn reaches keel as a
 * key (not a signal that would end the process).
 */
export class ChatInput {
  private history: string[] = [];

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly env: NodeJS.ProcessEnv = {},
  ) {}

  /**
   * Reads one line; undefined when the user leaves (Ctrl-D, or Ctrl-C twice on an empty line, or the input ends).
   * The prompt is a question like any other on this terminal (`oneQuestionAtATime`): it waits for one
   * being asked (a server's elicitation that came during the turn), and one that comes while it is read waits for the line.
   * `signal` aborted (SIGTERM) is leaving too.
   */
  read(prompt: string, hint: string, signal?: AbortSignal): Promise<string | undefined> {
    return oneQuestionAtATime(this.input, () => this.readLine(prompt, hint, signal));
  }

  private readLine(prompt: string, hint: string, signal?: AbortSignal): Promise<string | undefined> {
    // Left already (SIGTERM, a hangup): no reader is made, as making one on a hung-up terminal fails (EIO).
    if (signal?.aborted) return Promise.resolve(undefined);
    const rl = createInterface({
      input: this.input,
      output: this.output,
      terminal: true,
      history: this.history,
      historySize: 500,
      removeHistoryDuplicates: true,
    });
    const bracketed = (this.output as { isTTY?: boolean }).isTTY === true && this.env.TERM !== "dumb";
    if (bracketed) this.output.write(PASTE_ON);
    return new Promise((resolve) => {
      let done = false;
      let interrupts = 0;
      // the lines of a paste before the one being edited, and whether a paste is arriving
      let pasted: string[] = [];
      let pasting = false;
      const onKey = (_text: string | undefined, key: { name?: string } | undefined) => {
        if (key?.name === "paste-start") pasting = true;
        else if (key?.name === "paste-end") pasting = false;
      };
      // A prompt of several lines is not kept in the history: ↑ would bring back only a piece of it.
      rl.on("history", (h: string[]) => {
        if (pasting || pasted.length) h.shift();
        this.history = h;
      });
      // after readline's own listener: a newline inside a paste reaches "line" with `pasting` set
      this.input.on("keypress", onKey);
      const onAbort = () => finish(undefined);
      const finish = (value: string | undefined) => {
        if (done) return;
        done = true;
        signal?.removeEventListener("abort", onAbort);
        this.input.off("keypress", onKey);
        if (bracketed) this.output.write(PASTE_OFF);
        rl.close();
        resolve(value);
      };
      rl.on("line", (line) => {
        if (!pasting) return finish([...pasted, line].join("\n"));
        // a newline of the paste: the line so far is kept (not a prompt of its own, nor a history entry)
        pasted.push(line);
        rl.setPrompt("  ");
        rl.prompt();
      });
      rl.on("close", () => finish(undefined));
      // The terminal went away (EIO, e.g. when the prompt gives it back to cooked mode): leaving, not a crash.
      rl.on("error", () => finish(undefined));
      rl.on("SIGINT", () => {
        if (rl.line !== "" || pasted.length) {
          // a typed line (or a paste) is dropped, not sent
          const dropped = pasted.length > 0;
          pasted = [];
          pasting = false;
          rl.write(null, { ctrl: true, name: "e" });
          rl.write(null, { ctrl: true, name: "u" });
          interrupts = 0;
          if (dropped) {
            this.output.write("\n");
            rl.setPrompt(prompt);
            rl.prompt();
          }
          return;
        }
        if (++interrupts >= 2) {
          this.output.write("\n");
          return finish(undefined);
        }
        this.output.write(`\n${hint}\n`);
        rl.prompt();
      });
      if (signal?.aborted) return finish(undefined);
      signal?.addEventListener("abort", onAbort, { once: true });
      rl.setPrompt(prompt);
      rl.prompt();
    });
  }

  /** Calls `onInterrupt` on each Ctrl-C until `stop`. */
  watch(onInterrupt: () => void): InterruptWatch {
    const input = this.input as NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(on: boolean): void };
    emitKeypressEvents(input);
    const onKey = (_text: string | undefined, key: { ctrl?: boolean; name?: string } | undefined) => {
      if (key?.ctrl && key.name === "c") onInterrupt();
    };
    const arm = () => {
      if (input.isTTY) input.setRawMode?.(true);
      input.resume();
    };
    arm();
    input.on("keypress", onKey);
    return {
      rearm: arm,
      stop(keepReading) {
        input.off("keypress", onKey);
        if (keepReading) return;
        if (input.isTTY) input.setRawMode?.(false);
        input.pause();
      },
    };
  }
}
