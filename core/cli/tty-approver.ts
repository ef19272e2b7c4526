import { terminalText } from "./terminal-text.js";
import { createInterface } from "node:readline/promises";
import type { ApprovalAnswer, ApprovalRequest, Approver } from "../types.js";

/**
 * Asks on the terminal: yes / no / always (for this session); any other answer means no. Ctrl-C
 * at the prompt (or `signal` aborting while it waits) is not an answer: `approve` rejects with an
 * AbortError (the call ends `cancelled`) and `onInterrupt` runs, so the CLI cancels the whole
 * command as Ctrl-C does anywhere else.
 */
export function ttyApprover(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, onInterrupt?: () => void): Approver {
  return {
    async approve(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
      const rl = createInterface({ input, output });
      const interrupted = new AbortController();
      // On a terminal readline reads Ctrl-C itself (raw mode): no SIGINT reaches the process.
      rl.on("SIGINT", () => {
        interrupted.abort();
        onInterrupt?.();
      });
      try {
        const args = JSON.stringify(req.input);
        output.write(
          terminalText(
            `? ${req.tool}${req.tool !== req.resolvedTool ? ` (→ ${req.resolvedTool})` : ""} wants to run [${req.risk.join(", ")}]: ${args.length > 300 ? args.slice(0, 300) + "…" : args}\n  ${req.reason}\n`,
          ),
        );
        const answer = (await rl.question("  Allow? [y]es / [n]o / [a]lways for this session: ", { signal: AbortSignal.any([signal, interrupted.signal]) }))
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
    },
  };
}
