import { readJsonStateSync, updateJsonState } from "../state/json-file.js";

/** One queued message (`keel send`). */
export interface QueuedMessage {
  text: string;
  at: string;
}

/** Appends a durable message to a session's queue (FIFO, under a file lock). */
export async function enqueueMessage(queueFile: string, text: string): Promise<number> {
  return updateJsonState<QueuedMessage[], number>(queueFile, [], (cur) => {
    const next = [...(Array.isArray(cur) ? cur : []), { text, at: new Date().toISOString() }];
    return { value: next, result: next.length };
  });
}

/**
 * The messages of a queue file's content that are well formed (a `text` string each). Anything else
 * (a committed queue.json may hold `{"text": [{"type": "text", …}]}`) is never sent, so what
 * `peekQueue` shows is exactly what `drainQueue` sends.
 */
function wellFormed(items: unknown): QueuedMessage[] {
  return Array.isArray(items) ? items.filter((i): i is QueuedMessage => typeof (i as QueuedMessage | null)?.text === "string") : [];
}

/** Takes every well-formed queued message in FIFO order and empties the queue (dropping what is not). */
export async function drainQueue(queueFile: string): Promise<QueuedMessage[]> {
  return updateJsonState<QueuedMessage[], QueuedMessage[]>(queueFile, [], (cur) => {
    const items = Array.isArray(cur) ? cur : [];
    return items.length ? { value: [], result: wellFormed(items) } : { result: [] };
  });
}

/** The queued messages without taking them (for showing what a resume will send). Never throws: an unreadable queue reads as empty. */
export function peekQueue(queueFile: string): QueuedMessage[] {
  try {
    return wellFormed(readJsonStateSync<unknown>(queueFile, []));
  } catch {
    return [];
  }
}
