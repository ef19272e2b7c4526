import { createInterface } from "node:readline/promises";
import type { ElicitationAnswer, ElicitationRequest, Elicitor } from "../elicitation.js";
import { terminalFailure } from "./terminal-failure.js";
import { exactText, terminalText } from "./terminal-text.js";
import { oneQuestionAtATime } from "./terminal-question.js";
import { dropTypeAhead } from "./type-ahead.js";

/**
 * Asks an MCP server's elicitation on a terminal: each field of the form (Enter keeps the default),
 * then whether to send the answers. The server's text is terminal-safe: its message indented under
 * the question, each field's title on one line (`exactText`), so it cannot imitate keel's own prompts;
 * keys typed before the question was shown are dropped (`dropTypeAhead`). Ctrl-C at the prompt (or `signal` aborting) cancels the
 * elicitation and runs `onInterrupt`; a closed terminal cancels it too. Asked when no other question is
 * asked on `input` (`oneQuestionAtATime`): one arriving while an approval waits is shown after its answer. Never throws.
 */
export function ttyElicitor(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, onInterrupt?: () => void): Elicitor {
  const elicitor: Elicitor = (req, signal) => oneQuestionAtATime(input, () => ask(input, output, req, signal, onInterrupt));
  elicitor.waitsForUser = true;
  return elicitor;
}

async function ask(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  req: ElicitationRequest,
  signal: AbortSignal,
  onInterrupt?: () => void,
): Promise<ElicitationAnswer> {
  if (signal.aborted) return { action: "cancel" };
  // The server's message keeps its lines, each indented: none reads as a prompt of keel's own.
  output.write(`? MCP server "${exactText(req.server)}" asks: ${terminalText(req.message).replace(/\n/g, "\n    ")}\n`);
  // Keys typed before the question was shown are no answer to it.
  const typed = await dropTypeAhead(input);
  if (typed === "ctrl-c") onInterrupt?.();
  if (typed) return { action: "cancel" };
  const rl = createInterface({ input, output });
  // A terminal that went away (EIO): the question ends (cancelled), never a crash.
  const failed = terminalFailure(rl);
  const interrupted = new AbortController();
  // On a terminal readline reads Ctrl-C itself (raw mode): no SIGINT reaches the process.
  rl.on("SIGINT", () => {
    interrupted.abort();
    onInterrupt?.();
  });
  const asking = AbortSignal.any([signal, interrupted.signal, failed]);
  try {
    const content: Record<string, string | number | boolean> = {};
    for (const [key, prop] of Object.entries(req.requestedSchema?.properties ?? {})) {
      const hint = prop.enum ? ` (${prop.enum.join("/")})` : prop.type ? ` (${prop.type})` : "";
      const def = prop.default !== undefined ? ` [${String(prop.default)}]` : "";
      const answer = (await rl.question(`  ${exactText(`${prop.title ?? key}${hint}${def}`)}: `, { signal: asking })).trim();
      if (answer === "") continue;
      if (prop.type === "number" || prop.type === "integer") content[key] = Number(answer);
      else if (prop.type === "boolean") content[key] = /^(y|yes|true|1)$/i.test(answer);
      else content[key] = answer;
    }
    const ok = (await rl.question("  Send these answers? [y]es / [n]o: ", { signal: asking })).trim().toLowerCase();
    return ok === "y" || ok === "yes" ? { action: "accept", content } : { action: "decline" };
  } catch {
    return { action: "cancel" };
  } finally {
    rl.close();
  }
}
