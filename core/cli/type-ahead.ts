import { setTimeout as sleep } from "node:timers/promises";

/** How long input is dropped once a question is shown: keys typed before it arrive at once, and no one reads a prompt and answers it this fast. */
const TYPE_AHEAD_MS = 150;

/**
 * Drops what was typed on the terminal before a question was shown, so it cannot answer it: a "y"
 * and Enter typed while keel was busy (for an earlier prompt, or because a model's text asked for
 * it) would otherwise approve a call the user never saw. Reads `input` in raw mode for a moment and
 * throws the bytes away. Resolves `"ctrl-c"` when they held Ctrl-C (the caller treats it as Ctrl-C at
 * the prompt), `"closed"` when the input ended meanwhile (no answer can come), else undefined —
 * also at once when `input` is not a terminal.
 */
export async function dropTypeAhead(input: NodeJS.ReadableStream): Promise<"ctrl-c" | "closed" | undefined> {
  const tty = input as NodeJS.ReadableStream & { isTTY?: boolean; isRaw?: boolean; setRawMode?(on: boolean): void; readableEnded?: boolean };
  if (!tty.isTTY) return undefined;
  const wasRaw = tty.isRaw === true;
  let outcome: "ctrl-c" | "closed" | undefined;
  const drop = (chunk: Buffer | string) => {
    if (String(chunk).includes("\u0003")) outcome = "ctrl-c";
  };
  const ended = () => (outcome ??= "closed");
  tty.setRawMode?.(true);
  tty.on("data", drop);
  tty.once("end", ended);
  tty.resume();
  try {
    await sleep(TYPE_AHEAD_MS);
    // The timer can come before the read of keys already waiting (Node runs timers first in its loop): a process that got
    // no CPU for that long (a loaded machine) would end the drop and let the question read them. The loop's next poll
    // phase, which comes before this immediate, reads them into the drop.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    tty.off("data", drop);
    tty.off("end", ended);
    if (!wasRaw) tty.setRawMode?.(false);
  }
  return outcome ?? (tty.readableEnded ? "closed" : undefined);
}
