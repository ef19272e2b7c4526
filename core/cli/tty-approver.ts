import { terminalText } from "./terminal-text.js";
import { createInterface } from "node:readline/promises";
import type { ApprovalAnswer, ApprovalRequest, Approver } from "../types.js";

/** Asks on the terminal: yes / no / always (for this session). Anything else means no. */
export function ttyApprover(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Approver {
  return {
    async approve(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
      const rl = createInterface({ input, output });
      try {
        const args = JSON.stringify(req.input);
        output.write(terminalText(`\n? ${req.tool}${req.tool !== req.resolvedTool ? ` (→ ${req.resolvedTool})` : ""} wants to run [${req.risk.join(", ")}]: ${args.length > 300 ? args.slice(0, 300) + "…" : args}\n  ${req.reason}\n`));
        const answer = (await rl.question("  Allow? [y]es / [n]o / [a]lways for this session: ", { signal })).trim().toLowerCase();
        if (answer === "y" || answer === "yes") return "yes";
        if (answer === "a" || answer === "always") return "always";
        return "no";
      } catch {
        return "no";
      } finally {
        rl.close();
      }
    },
  };
}
