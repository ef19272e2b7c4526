import { createInterface } from "node:readline/promises";
import { recordTrust, trustApproves, workspaceTrust } from "../../trust.js";
import { resolveWorkspace } from "../../workspace.js";
import type { CliContext } from "../cli-context.js";
import { terminalFailure } from "../terminal-failure.js";
import { terminalText } from "../terminal-text.js";
import { dropTypeAhead } from "../type-ahead.js";
import { CALL_MARK } from "../../tools/call-mark.js";
import { reviewWorkspace, sandboxNote, trustItemLine } from "../trust-review.js";

/**
 * Before an interactive session opens its host: when the workspace declares something its trust
 * would let it run or allow (an MCP server, a hook, a code plugin, widening settings, a skill's or
 * command's `allowed-tools`) that is not approved yet — never trusted, or added or changed since
 * `keel trust` — lists it and asks whether to trust the workspace, as `keel trust` would. "y"
 * records the approval (the session then runs them); anything else, Ctrl-C or a closed terminal
 * keeps the workspace restricted. Nothing is asked with `--trust` or `KEEL_TRUST=1`, when all is approved, or
 * inside a process keel started for a tool (whose terminal, if any, a model's command drives: see refuseInToolProcess).
 */
export async function offerTrust(ctx: CliContext): Promise<void> {
  if (ctx.globals().trust || ctx.io.env[CALL_MARK]) return;
  const ws = resolveWorkspace(ctx.globals().cwd, ctx.io.env);
  const current = await workspaceTrust(ws, false, ctx.io.env);
  if (current.trusted && current.approved === undefined) return;
  const { items, sandboxed, unixSocketsBlocked, credentialsFrom } = await reviewWorkspace(ctx);
  const waiting = items.filter((item) => !trustApproves(current, item));
  if (!waiting.length) return;
  const out = ctx.io.stdout;
  const lines = waiting.map((item) => trustItemLine(item));
  out.write(
    terminalText(
      [
        !current.trusted
          ? `${ws.root} is not trusted. Trusting it lets keel run or allow what it declares:`
          : current.unpinned
            ? `${ws.root} was trusted before \`keel trust\` recorded what it approves; nothing of it runs until you approve it:`
            : `Added or changed in ${ws.root} since you trusted it (they do not run until you approve them):`,
        ...lines.map((line) => `  ${line}`),
        ...[sandboxNote(waiting, sandboxed, unixSocketsBlocked, credentialsFrom)].filter((note) => note !== undefined),
        // The count and a long line are named next to the question: a long list can scroll its start off the screen.
        `${waiting.length === 1 ? "It runs with your permissions: review it" : `These ${waiting.length} run with your permissions: review them`} (and the files named) first. \`keel trust --revoke\` undoes it.`,
        ...(lines.some((line) => line.length > 500) ? ["Some of them are long lines: scroll up to read them in full."] : []),
      ].join("\n") + "\n",
    ),
  );
  // Keys typed before the question was shown are no answer to it (Ctrl-C among them, or a closed terminal, keeps the workspace restricted).
  const typed = await dropTypeAhead(ctx.io.stdin);
  const rl = createInterface({ input: ctx.io.stdin, output: out });
  // A terminal that went away (EIO): the question ends (restricted), never a crash.
  const failed = terminalFailure(rl);
  const interrupted = new AbortController();
  if (typed) interrupted.abort();
  rl.on("SIGINT", () => interrupted.abort());
  let answer = "";
  try {
    answer = (
      await rl.question("? Trust this workspace? [y]es / [N]o, keep it restricted: ", { signal: AbortSignal.any([interrupted.signal, failed, ctx.signal]) })
    )
      .trim()
      .toLowerCase();
  } catch {
    // Ctrl-C or a closed terminal: not an approval
  } finally {
    rl.close();
  }
  if (answer === "y" || answer === "yes") {
    await recordTrust(ws, false, items);
    out.write(terminalText(`Trusted ${ws.root}: approved as they are now (one added or changed later is asked about again).`) + "\n");
  } else out.write("Keeping it restricted: its servers, hooks and code plugins do not run, and its config only restricts.\n");
}
