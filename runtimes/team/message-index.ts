import { MAX_STATE_TEXT_BYTES, StateError } from "../../core/index.js";

/** `[seq, byte offset, byte length]` of one line. */
export type Entry = [number, number, number];

/** The index next to the log: covers `bytes` of it; entries grouped by `@<recipient>` (`@*` = everyone). */
export interface LogIndex {
  version: 1;
  bytes: number;
  last_seq: number;
  recipients: Record<string, Entry[]>;
}

/** An index of an empty log. */
export const emptyIndex = (): LogIndex => ({ version: 1, bytes: 0, last_seq: 0, recipients: {} });

/**
 * True when `index` is one keel writes for a log of `size` bytes: it covers at most the log, and every
 * entry is a line inside what it covers (an entry may not make a read allocate or show more than the log). Never throws.
 */
export function indexFits(index: LogIndex, size: number): boolean {
  if (!index || typeof index !== "object" || !Number.isSafeInteger(index.bytes) || index.bytes < 0 || index.bytes > size) return false;
  if (!Number.isSafeInteger(index.last_seq) || !index.recipients || typeof index.recipients !== "object" || Array.isArray(index.recipients)) return false;
  return Object.values(index.recipients).every(
    (entries) =>
      Array.isArray(entries) &&
      entries.every(
        (e) => Array.isArray(e) && e.length === 3 && e.every((n) => Number.isSafeInteger(n)) && e[1] >= 0 && e[2] > 0 && e[1] + e[2] <= index.bytes,
      ),
  );
}

/** Recipient keys are prefixed with "@" so no name (e.g. `__proto__`) can hit Object.prototype. */
export function entriesFor(index: LogIndex, recipient: string): Entry[] {
  const key = `@${recipient}`;
  return Object.hasOwn(index.recipients, key) ? index.recipients[key]! : [];
}

/** Records the line of `msg` (at `offset`, `length` bytes) under its recipient. */
export function addEntry(index: LogIndex, msg: { seq: number; recipient: string }, offset: number, length: number): void {
  const key = `@${msg.recipient}`;
  if (!Object.hasOwn(index.recipients, key)) index.recipients[key] = [];
  index.recipients[key]!.push([msg.seq, offset, length]);
  index.last_seq = Math.max(index.last_seq, msg.seq);
}

/**
 * The entries whose lines add up to at most MAX_STATE_TEXT_BYTES: the first ones with `first`, else
 * the last ones. Throws StateError when not even one fits (a line keel would not have written).
 */
export function withinBytes(entries: Entry[], first: boolean, file: string): Entry[] {
  let bytes = 0;
  let n = 0;
  for (; n < entries.length; n++) {
    bytes += entries[first ? n : entries.length - 1 - n]![2];
    if (bytes > MAX_STATE_TEXT_BYTES) break;
  }
  if (n === 0 && entries.length > 0)
    throw new StateError(
      `Message log ${file} has a line longer than keel reads of a state file (${MAX_STATE_TEXT_BYTES / 1024 / 1024} MiB). keel left it untouched: move the team's folder away, then retry.`,
      file,
    );
  return first ? entries.slice(0, n) : entries.slice(entries.length - n);
}

/** The position of the first entry after seq `since` (entries are in seq order). */
export function firstAfter(entries: Entry[], since: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (entries[mid]![0] <= since) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
