import type { Elicitor } from "../../core/index.js";

export type { ElicitationAnswer, ElicitationRequest, Elicitor } from "../../core/index.js";

/** Elicitation policy from `mcp.elicitation` config: `decline` (default), `cancel`, or `ask` (TTY only). */
export type ElicitationPolicy = "decline" | "cancel" | "ask";

/**
 * The default elicitor. Without a configured policy, or with `ask`, it asks with `ask` (the host's
 * prompt, e.g. `keel chat`'s) or, when stdin and stderr are TTYs, on the terminal (each field, Enter
 * keeps the default) and declines otherwise; `decline` and `cancel` answer so without asking. It
 * waits for a person unless it answers without asking, or `ask` says it asks no one (`waitsForUser: false`).
 * URL-mode elicitations are declined.
 */
export function policyElicitor(policy?: ElicitationPolicy, interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY), ask?: Elicitor): Elicitor {
  const elicitor: Elicitor = async (req, signal) => {
    if (policy === "cancel") return { action: "cancel" };
    if (policy === "decline" || !interactive || req.mode === "url") return { action: "decline" };
    if (ask) return ask(req, signal);
    // the terminal prompt loads only when a server actually asks
    const { ttyElicitor } = await import("../../core/cli/index.js");
    return ttyElicitor(process.stdin, process.stderr)(req, signal);
  };
  // An `ask` that says it asks no one (`waitsForUser: false`, createHost's default) leaves tool timeouts as they are.
  elicitor.waitsForUser = interactive && policy !== "cancel" && policy !== "decline" && ask?.waitsForUser !== false;
  return elicitor;
}

/** Accepts every elicitation with an empty answer, so the SDK fills in the schema's defaults (tests, conformance). */
export const acceptDefaultsElicitor: Elicitor = async () => ({ action: "accept", content: {} });
