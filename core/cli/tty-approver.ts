import { createInterface } from "node:readline/promises";
import { visibleJson } from "../visible-json.js";
import type { ApprovalAnswer, ApprovalRequest, Approver } from "../types.js";
import { terminalFailure } from "./terminal-failure.js";
import { exactText } from "./terminal-text.js";
import { oneQuestionAtATime } from "./terminal-question.js";
import { dropTypeAhead } from "./type-ahead.js";

/** Arguments longer than this get a line next to the question saying to scroll up: their start (and the tool's name) may be off the screen. */
const LONG_ARGUMENTS = 1000;

/**
 * Asks on the terminal: yes / no / always (for this session); any other answer means no. The call
 * is shown whole and exactly (`exactText`): every argument in full, newlines and invisible
 * characters as escapes, long runs of spaces counted — a command is never cut, so no tail of it
 * runs unseen; keys typed before the call was shown are dropped, not read as the answer (see
 * `dropTypeAhead`). Ctrl-C at the prompt (or `signal` aborting while it waits) is not an answer:
 * `approve` rejects with an AbortError (the call ends `cancelled`) and `onInterrupt` runs, so the
 * CLI cancels the whole command as Ctrl-C does anywhere else. Asked when no other question is asked
 * on `input` (`oneQuestionAtATime`): an elicitation arriving meanwhile waits for the answer.
 */
export function ttyApprover(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, onInterrupt?: () => void): Approver {
  return {
    approve: (req, signal) => oneQuestionAtATime(input, () => ask(req, signal)),
  };

  async function ask(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    if (signal.aborted) throw new DOMException("The approval prompt was cancelled.", "AbortError");
    const args = exactText(visibleJson(req.input));
    const tool = exactText(req.tool);
    output.write(
      [
        `? ${tool}${req.tool !== req.resolvedTool ? ` (→ ${exactText(req.resolvedTool)})` : ""} wants to run [${exactText(req.risk.join(", "))}]: ${args}`,
        `  ${exactText(req.reason)}`,
        ...(args.length > LONG_ARGUMENTS ? [`  The arguments of ${tool} above are ${args.length} characters long: scroll up to read them in full.`] : []),
      ].join("\n") + "\n",
    );
    // A "y" typed before this call was shown is no answer to it.
    const typed = await dropTypeAhead(input);
    if (typed === "closed") return "no"; // the terminal went away: not an approval
    if (typed === "ctrl-c") {
      onInterrupt?.();
      throw new DOMException("The approval prompt was cancelled (Ctrl-C).", "AbortError");
    }
    const rl = createInterface({ input, output });
    // A terminal that went away (EIO): the question ends (not an approval), never a crash.
    const failed = terminalFailure(rl);
    const interrupted = new AbortController();
    // On a terminal readline reads Ctrl-C itself (raw mode): no SIGINT reaches the process.
    rl.on("SIGINT", () => {
      interrupted.abort();
      onInterrupt?.();
    });
    try {
      const answer = (
        await rl.question("  Allow? [y]es / [n]o / [a]lways for this session: ", { signal: AbortSignal.any([signal, interrupted.signal, failed]) })
      )
        .trim()
        .toLowerCase();
      if (answer === "y" || answer === "yes") return "yes";
      if (answer === "a" || answer === "always") return "always";
      return "no";
    } catch {
      if (signal.aborted || interrupted.signal.aborted) throw new DOMException("The approval prompt was cancelled (Ctrl-C).", "AbortError");
      return "no"; // the terminal went away (input closed, read error): not an approval
    } finally {
      rl.close();
    }
  }
}
