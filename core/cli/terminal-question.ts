/** The question being asked on a terminal input: kept on the stream object itself, so every asker of that terminal sees it. */
const ASKING = Symbol("keel.terminal-question");

type AskedInput = NodeJS.ReadableStream & { [ASKING]?: Promise<unknown> };

/**
 * Runs `ask` once no other question is being asked on `input`, in the order asked: approvals,
 * elicitations and the trust offer show one question at a time on one terminal, whoever made them.
 * Two readers at once would both take the user's keys — a server's elicitation arriving while an
 * approval waits drew its own `[y]es / [n]o` below it, and the one `y` meant for the server also
 * approved the call. The next question waits for this one to settle (answered, refused or failed).
 */
export function oneQuestionAtATime<T>(input: NodeJS.ReadableStream, ask: () => Promise<T>): Promise<T> {
  const stream = input as AskedInput;
  const asked = (stream[ASKING] ?? Promise.resolve()).then(ask);
  stream[ASKING] = asked.catch(() => undefined);
  return asked;
}
