import { createInterface, emitKeypressEvents } from "node:readline";

/** Watches the terminal for Ctrl-C while a turn runs (nothing is echoed meanwhile). */
export interface InterruptWatch {
  /** Takes the terminal back after something else read from it (an approval prompt closes its reader). */
  rearm(): void;
  /** Stops watching and gives the terminal back to cooked mode. */
  stop(): void;
}

/**
 * The chat's prompt line on a terminal (node:readline): line editing, a history of this process's
 * prompts (↑/↓), Ctrl-C clears a typed line and, on an empty line pressed twice, leaves, as Ctrl-D
 * does. Between prompts the terminal stays in raw mode only while `watch` runs, so Ctrl-C during a
 * turn reaches keel as a key (not a signal that would end the process).
 */
export class ChatInput {
  private history: string[] = [];

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
  ) {}

  /** Reads one line; undefined when the user leaves (Ctrl-D, or Ctrl-C twice on an empty line, or the input ends). */
  read(prompt: string, hint: string): Promise<string | undefined> {
    const rl = createInterface({
      input: this.input,
      output: this.output,
      terminal: true,
      history: this.history,
      historySize: 500,
      removeHistoryDuplicates: true,
    });
    rl.on("history", (h: string[]) => (this.history = h));
    return new Promise((resolve) => {
      let done = false;
      let interrupts = 0;
      const finish = (value: string | undefined) => {
        if (done) return;
        done = true;
        rl.close();
        resolve(value);
      };
      rl.on("line", (line) => finish(line));
      rl.on("close", () => finish(undefined));
      rl.on("SIGINT", () => {
        if (rl.line !== "") {
          // a typed line is dropped, not sent
          rl.write(null, { ctrl: true, name: "e" });
          rl.write(null, { ctrl: true, name: "u" });
          interrupts = 0;
          return;
        }
        if (++interrupts >= 2) {
          this.output.write("\n");
          return finish(undefined);
        }
        this.output.write(`\n${hint}\n`);
        rl.prompt();
      });
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
      stop() {
        input.off("keypress", onKey);
        if (input.isTTY) input.setRawMode?.(false);
        input.pause();
      },
    };
  }
}
