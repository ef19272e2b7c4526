import { errorMessage } from "../../errors.js";
import { readSessionState } from "../../session/session-store.js";
import { table } from "../format.js";
import { sessionTotals, type Chat } from "./chat-session.js";

/** One slash command of `keel chat`. */
interface SlashCommand {
  name: string;
  usage: string;
  help: string;
  /** Runs it; resolves to false when the chat should end. */
  run(chat: Chat, args: string): Promise<boolean | void>;
}

/** Runs `keel ARGV…` in this process (output to the terminal; Ctrl-C cancels it, not the chat), saying so when it is not available. */
async function cli(chat: Chat, argv: string[]): Promise<void> {
  chat.endLine();
  const runCli = chat.ctx.runCli;
  if (!runCli) return chat.say(`Run \`keel ${argv.join(" ")}\` in a shell (not available inside this chat).`);
  await chat.cancellable((signal) => runCli(argv, signal));
}

const COMMANDS: SlashCommand[] = [
  { name: "help", usage: "/help", help: "this list", run: async (chat) => chat.say(helpText()) },
  { name: "tools", usage: "/tools", help: "the tools the model can call", run: (chat) => cli(chat, ["tools"]) },
  { name: "mcp", usage: "/mcp", help: "MCP servers and their state", run: (chat) => cli(chat, ["mcp", "list"]) },
  { name: "plugins", usage: "/plugins", help: "plugins found, what they add, diagnostics", run: (chat) => cli(chat, ["plugins"]) },
  { name: "workflows", usage: "/workflows", help: "workflows and prompt commands (/run NAME)", run: (chat) => cli(chat, ["workflow", "list"]) },
  { name: "run", usage: "/run NAME [args]", help: "run a prompt command (Claude/Gemini) in this session, or a workflow", run: runNamed },
  { name: "compact", usage: "/compact", help: "summarize the older history of this session now", run: compact },
  {
    name: "clear",
    usage: "/clear",
    help: "start a new session with the next prompt",
    run: async (chat) => (chat.use(undefined), chat.say("The next prompt starts a new session.")),
  },
  { name: "sessions", usage: "/sessions", help: "sessions of this workspace, newest first", run: (chat) => cli(chat, ["sessions", "list"]) },
  { name: "resume", usage: "/resume ID", help: "continue session ID with the next prompt", run: resume },
  { name: "cost", usage: "/cost", help: "tokens in/out per turn and for the session", run: async (chat) => chat.say(costText(chat)) },
  { name: "context", usage: "/context", help: "what the model sees: system prompt, instructions, tool menu", run: (chat) => cli(chat, ["context"]) },
  { name: "exit", usage: "/exit", help: "leave (also Ctrl-D, or Ctrl-C twice)", run: async () => false },
];

/**
 * Handles a line that starts with `/`: a built-in command (its name in any case), else a prompt command of that name run
 * as a turn (as `keel run "/name args"` does), else a suggestion of the closest command. Resolves
 * to false when the chat should end. Never throws: failures are shown.
 */
export async function runSlash(chat: Chat, line: string): Promise<boolean> {
  const [, name = "", args = ""] = /^\/(\S*)\s*([\s\S]*)$/.exec(line.trim()) ?? [];
  // Built-in names in any case: prompt commands are found case-insensitively, so a repository's
  // .claude/commands/exit.md would otherwise answer /EXIT (as a prompt sent in your name) instead of leaving.
  const lower = name.toLowerCase();
  const command = COMMANDS.find((c) => c.name === lower) ?? (lower === "quit" ? COMMANDS.find((c) => c.name === "exit") : undefined);
  try {
    if (command) return (await command.run(chat, args.trim())) !== false;
    if (name && (await promptCommand(chat, name, args))) return true;
    const near = closest(
      name,
      COMMANDS.map((c) => c.name),
    );
    chat.say(`Unknown command /${name}.${near ? ` Did you mean /${near}?` : ""} /help lists the commands.`);
  } catch (error) {
    chat.renderer.notice(errorMessage(error), "error");
  }
  return true;
}

/** Names of the built-in slash commands (for completion and tests). */
export const SLASH_COMMANDS: readonly string[] = COMMANDS.map((c) => c.name);

function helpText(): string {
  return (
    table(
      ["COMMAND", "WHAT"],
      COMMANDS.map((c) => [c.usage, c.help]),
      70,
    ) + "\nAnything else is a prompt. Ctrl-C cancels a running turn; Ctrl-D leaves."
  );
}

/** `/run NAME args`: a prompt command expanded and sent in this session, else `keel workflow run NAME` (k=v words become --arg). */
async function runNamed(chat: Chat, args: string): Promise<void> {
  const [, name = "", rest = ""] = /^(\S*)\s*([\s\S]*)$/.exec(args) ?? [];
  if (!name) return chat.say("Usage: /run NAME [args] (/workflows lists the names).");
  if (await promptCommand(chat, name, rest)) return;
  const words = rest.split(/\s+/).filter(Boolean);
  const pairs = words.every((w) => /^[\w.-]+=/.test(w)) ? words : rest ? [`arguments=${rest}`] : [];
  await cli(chat, ["workflow", "run", name, ...pairs.flatMap((p) => ["--arg", p])]);
}

/**
 * Expands `/name args` as a prompt command and runs it as a turn; false when there is no such command.
 * Ctrl-C while it expands (its shell lines run) cancels it, not the chat: nothing is sent.
 */
async function promptCommand(chat: Chat, name: string, args: string): Promise<boolean> {
  const service = chat.host.service("prompt-commands");
  if (!service) return false;
  const { expanded, cancelled } = await chat.cancellable(async (signal) => ({
    expanded: await service.expand(`/${name}${args ? ` ${args}` : ""}`, { approver: chat.approver, yes: chat.ctx.globals().yes, signal, origin: "cli" }),
    cancelled: signal.aborted,
  }));
  if (!expanded) return false;
  if (cancelled) chat.renderer.notice(`/${name} cancelled: nothing was sent.`, "warn");
  else await chat.turn(expanded.prompt, expanded.model ?? chat.model, expanded.started);
  return true;
}

async function compact(chat: Chat): Promise<void> {
  const id = chat.sessionId;
  if (!id) return chat.say("Nothing to compact yet: no session in this chat.");
  // Ctrl-C stops the summary: the history stays as it was
  const removed = await chat.cancellable((signal) =>
    chat.runtime.compact(id, { signal, model: chat.model }).catch((error: unknown) => {
      if (signal.aborted) return undefined;
      throw error;
    }),
  );
  if (removed === undefined) return chat.renderer.notice("/compact cancelled: the history is unchanged.", "warn");
  chat.say(removed ? `Compacted: ${removed} older messages are now one summary.` : "Nothing to compact: the history is already short.");
}

async function resume(chat: Chat, id: string): Promise<void> {
  if (!id) return chat.say("Usage: /resume ID (/sessions lists them).");
  if (!chat.exists(id)) return chat.say(`No session ${id} in this workspace. /sessions lists them.`);
  const state = await readSessionState(chat.host.workspace.stateDir, id);
  chat.use(id, state.usage);
  chat.say(`Session ${id} (${state.title || "untitled"}, ${state.messages.length} messages): the next prompt continues it.`);
  // one that paused for an approval asks it now
  await chat.settleWaiting();
}

function costText(chat: Chat): string {
  if (chat.turns.length === 0) return "No turns yet.";
  const rows = chat.turns.map((t) => [String(t.turn), t.sessionId, String(t.inputTokens), String(t.outputTokens), String(t.modelCalls), String(t.toolCalls)]);
  const current = chat.turns.filter((t) => t.sessionId === chat.sessionId);
  const total = sessionTotals(current);
  return (
    table(["TURN", "SESSION", "IN", "OUT", "MODEL CALLS", "TOOL CALLS"], rows) +
    `\nThis session in this chat: ${total.inputTokens} tokens in, ${total.outputTokens} out (${total.modelCalls} model calls, ${total.toolCalls} tool calls). No price: the model profile has none.`
  );
}

/** The name closest to `name` (edit distance at most a third of its length, at least 2), if any. */
function closest(name: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of names) {
    const d = distance(name, candidate);
    if (d < bestDistance || (best === undefined && candidate.startsWith(name) && name.length > 0))
      [best, bestDistance] = [candidate, Math.min(d, bestDistance)];
  }
  return best;
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
