import { readJsonStateSync, updateJsonState } from "../state/json-file.js";
import { queuedMessageIsKeels, sealQueuedMessage } from "./session-file-seal.js";
import type { SessionSeals } from "./session-seal.js";

/** One queued message (`keel send`), with keel's MAC of it for its session (see session-file-seal.ts). */
export interface QueuedMessage {
  text: string;
  at: string;
  /** `tool`: queued by a `keel send` inside a process keel started for a tool (`KEEL_CALL` set), not by the user; covered by `mac`. */
  from?: "tool";
  mac?: string;
}

/** The session a queue belongs to and the user's seals: what makes a queued message keel's (see `sealQueuedMessage`). */
export interface QueueOwner {
  id: string;
  seals: SessionSeals;
}

/**
 * Appends a durable message to a session's queue (FIFO, under a file lock), with keel's MAC of it for
 * `owner` (a resume sends only messages keel queued); `from: "tool"` records that a command keel ran for
 * a tool queued it. Throws StateError when the user's key cannot be made.
 */
export async function enqueueMessage(queueFile: string, text: string, owner: QueueOwner, from?: "tool"): Promise<number> {
  const message = sealQueuedMessage({ text, at: new Date().toISOString(), ...(from ? { from } : {}) }, owner.id, owner.seals);
  return updateJsonState<QueuedMessage[], number>(queueFile, [], (cur) => {
    const next = [...(Array.isArray(cur) ? cur : []), message];
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

/**
 * Takes every well-formed queued message keel queued for `owner` in FIFO order and empties the queue
 * (dropping the rest: a message a repository wrote into the queue, which `git pull` can add to a
 * session's folder, is never sent as the user's words).
 */
export async function drainQueue(queueFile: string, owner: QueueOwner): Promise<QueuedMessage[]> {
  return updateJsonState<QueuedMessage[], QueuedMessage[]>(queueFile, [], (cur) => {
    const items = Array.isArray(cur) ? cur : [];
    return items.length ? { value: [], result: wellFormed(items).filter((m) => queuedMessageIsKeels(m, owner.id, owner.seals)) } : { result: [] };
  });
}

/**
 * Marks every well-formed queued message as keel's for `owner` (`keel sessions adopt`: the user read
 * them and vouches for them), dropping the rest. Returns them. Under the queue's lock.
 */
export async function adoptQueue(queueFile: string, owner: QueueOwner): Promise<QueuedMessage[]> {
  return updateJsonState<QueuedMessage[], QueuedMessage[]>(queueFile, [], (cur) => {
    const items = wellFormed(cur).map((m) => sealQueuedMessage(m, owner.id, owner.seals));
    return Array.isArray(cur) && cur.length ? { value: items, result: items } : { result: [] };
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

/** The queued messages keel did not queue for `owner` (a resume refuses to run while there are any). Never throws. */
export function foreignQueued(queueFile: string, owner: QueueOwner): QueuedMessage[] {
  return peekQueue(queueFile).filter((m) => !queuedMessageIsKeels(m, owner.id, owner.seals));
}
