import type { ElicitationRequest } from "../../elicitation.js";
import { UsageError } from "../../errors.js";
import { formatDiagnostic } from "../../diagnostics.js";
import { requireModelSpec } from "../../model/model-spec.js";
import { notSealedMessage, SessionSeals } from "../../session/session-seal.js";
import { readSessionMeta, readSessionState } from "../../session/session-store.js";
import type { CliContext } from "../cli-context.js";
import { terminalText } from "../terminal-text.js";
import { Chat } from "./chat-session.js";
import { runSlash } from "./slash-commands.js";
import { offerTrust } from "./trust-offer.js";

/** Options of `keel chat` (and of `keel` alone on a terminal). */
export interface ChatOptions {
  resume?: string;
  model?: string;
}

/**
 * `keel chat`: the interactive session on a terminal. Prompts run as turns of one agent session
 * (`--resume ID` continues an existing one), `/…` lines are chat commands (`/help`), Ctrl-C cancels
 * a running turn, Ctrl-D or `/exit` leaves. Needs a terminal: scripts use `keel run`.
 */
export async function chatCommand(ctx: CliContext, opts: ChatOptions): Promise<void> {
  if (!ctx.io.interactive)
    throw new UsageError('keel chat needs a terminal (stdin and stdout a TTY); in scripts use keel run "PROMPT" (with --resume ID to continue a session).');
  // For the chat's lifetime the host asks through the chat's inline prompts: approvals asked outside a
  // turn's own approver and MCP servers' elicitations (before the chat exists: refused, nothing can ask yet)
  // What the workspace would run or allow once trusted, and is not approved yet, is asked about first.
  await offerTrust(ctx);
  let chat: Chat | undefined;
  const host = await ctx.openHost({
    startServers: "background",
    approver: { approve: (req, signal) => (chat ? chat.approver.approve(req, signal) : Promise.resolve("no")) },
    elicit: Object.assign(
      (req: ElicitationRequest, signal: AbortSignal) => (chat ? chat.elicitor(req, signal) : Promise.resolve({ action: "decline" as const })),
      {
        waitsForUser: true,
      },
    ),
  });
  try {
    for (const d of host.diagnostics.items)
      if (d.source === "config" && d.severity !== "info") ctx.io.stderr.write(terminalText(`keel: ${formatDiagnostic(d)}`) + "\n");
    const runtime = host.service("agent-runtime");
    if (!runtime) throw new UsageError("The agent runtime is not loaded in this host.");
    // without a model there is nothing to chat with: say how to configure one before the first prompt
    if (!opts.resume) requireModelSpec(host.config, opts.model, host.env, host.workspace.root);
    chat = new Chat(ctx, host, runtime, opts.model);
    if (opts.resume) {
      if (!chat.exists(opts.resume)) throw new UsageError(`No session ${opts.resume} in this workspace: keel sessions lists them.`);
      // said before the first prompt (every turn's resume checks it too)
      const meta = await readSessionMeta(host.workspace.stateDir, opts.resume);
      if (!new SessionSeals(host.workspace).isYours(opts.resume, meta.createdAt)) throw new UsageError(notSealedMessage(opts.resume));
      const state = await readSessionState(host.workspace.stateDir, opts.resume);
      chat.use(opts.resume, state.usage);
    }
    const c = chat.c;
    chat.styled(
      c.bold("keel") +
        c.dim(` · ${chat.sessionId ? `continuing session ${chat.sessionId}` : "new session"} · /help for commands · Ctrl-C cancels a turn · Ctrl-D leaves`),
    );
    // a session that paused for an approval (keel run without a terminal) asks it now
    if (opts.resume) await chat.settleWaiting();
    const prompt = c.cyan("› ");
    for (;;) {
      if (ctx.signal.aborted) break;
      const line = await chat.input.read(prompt, c.dim("(Ctrl-C again or Ctrl-D to leave)"), ctx.signal);
      if (line === undefined) break;
      const text = line.trim();
      if (!text) continue;
      if (text.startsWith("/")) {
        if (!(await runSlash(chat, text))) break;
        continue;
      }
      await chat.turn(text);
    }
    if (chat.sessionId) chat.styled(c.dim(`Session ${chat.sessionId} saved; continue it with keel --resume ${chat.sessionId}`));
  } finally {
    await host.close();
  }
}
