import { lstat, mkdir, open, rename } from "node:fs/promises";
import { join } from "node:path";
import {
  assertOwnPath,
  PRIVATE_DIR_MODE,
  MAX_STATE_TEXT_BYTES,
  ownReadFlags,
  readJsonState,
  StateError,
  storageMessage,
  withFileLock,
  writeJsonState,
} from "../../core/index.js";
import { addEntry, emptyIndex, entriesFor, firstAfter, indexFits, withinBytes, type Entry, type LogIndex } from "./message-index.js";

/** One team message as stored (one JSON line in `messages.jsonl`). */
export interface TeamMessage {
  id: string;
  seq: number;
  ts: string;
  sender: string;
  recipient: string;
  message: string;
  metadata: Record<string, unknown>;
}

/** How to read messages: `recipient` adds broadcasts (`*`); `since` is an exclusive seq cursor. */
export interface ReadOptions {
  recipient?: string;
  since?: number;
  limit?: number;
}

/**
 * A team's messages: an append-only JSONL log plus a small index of line offsets per recipient,
 * so reading one recipient since a cursor parses only the index and the matching lines. The
 * index is a cache: a log longer than the index (a crash between append and index write) is
 * caught up from the tail; a torn last line from a crash is cut off before the next append.
 */
export class MessageLog {
  /** Absolute path of `messages.jsonl`. */
  readonly logFile: string;
  /** Absolute path of `index.json`. */
  readonly indexFile: string;

  constructor(readonly dir: string) {
    this.logFile = join(dir, "messages.jsonl");
    this.indexFile = join(dir, "index.json");
  }

  /** Runs `fn` holding the log's lock (appends and archiving take it). */
  locked<T>(fn: () => Promise<T>): Promise<T> {
    return withFileLock(this.logFile, fn);
  }

  /** Appends a message; the caller must hold `locked`. Returns the stored message with its id. */
  async appendLocked(msg: Omit<TeamMessage, "id" | "seq">): Promise<TeamMessage> {
    let index = await this.current(true);
    // A stale index (one that no longer describes the log, see `read`) is rebuilt before the append writes it back.
    if (!(await this.lastLineNamed(index))) index = await this.current(true, true);
    const seq = index.last_seq + 1;
    const stored: TeamMessage = { id: `msg_${seq}`, seq, ...msg };
    const line = Buffer.from(JSON.stringify(stored) + "\n", "utf8");
    await mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const handle = await open(this.logFile, "a");
    let at = 0;
    try {
      // In full: a disk that fills up mid-line writes part of it. A failed append is cut back (no torn line) and the
      // message is not sent — never reported sent while only part of it is on disk.
      while (at < line.length) at += (await handle.write(line, at, line.length - at)).bytesWritten;
      await handle.sync();
    } catch (error) {
      if (at > 0) await handle.truncate(index.bytes).catch(() => undefined);
      throw new StateError(`Could not append to the message log ${this.logFile}: ${storageMessage(error)} The message was not sent.`, this.logFile, {
        cause: error,
      });
    } finally {
      await handle.close();
    }
    addEntry(index, stored, index.bytes, line.length);
    index.bytes += line.length;
    await writeJsonState(this.indexFile, index);
    return stored;
  }

  /**
   * Messages matching the options, oldest first: the first `limit` after `since`, else the last `limit`;
   * at most MAX_STATE_TEXT_BYTES of them (fewer messages than asked, `total` still counts them all:
   * page with `since`), so an index or log a repository committed cannot make one read take gigabytes.
   */
  async read(opts: ReadOptions = {}): Promise<{ messages: TeamMessage[]; total: number; last_seq: number }> {
    // The index is a cache of the log: one that no longer describes it (the log was replaced by another of at
    // least its size: a restored copy, a checkout of a committed .keel) is rebuilt from the log, not believed.
    const read = (await this.readBy(await this.current(false), opts)) ?? (await this.readBy(await this.current(false, true), opts));
    if (read) return read;
    throw new StateError(
      `Message log ${this.logFile} holds lines keel does not write there. keel left it untouched: fix or move it, then retry.`,
      this.logFile,
    );
  }

  /** `read` through `index`; undefined when a line it points at is not the message it names (a stale index). */
  private async readBy(index: LogIndex, opts: ReadOptions): Promise<{ messages: TeamMessage[]; total: number; last_seq: number } | undefined> {
    let entries: Entry[];
    if (opts.recipient !== undefined) entries = [...entriesFor(index, opts.recipient), ...(opts.recipient === "*" ? [] : entriesFor(index, "*"))];
    else entries = Object.values(index.recipients).flat();
    entries.sort((a, b) => a[0] - b[0]);
    if (opts.since !== undefined) entries = entries.slice(firstAfter(entries, opts.since));
    const total = entries.length;
    if (opts.limit !== undefined) entries = opts.since !== undefined ? entries.slice(0, opts.limit) : entries.slice(-opts.limit);
    entries = withinBytes(entries, opts.since !== undefined, this.logFile);
    const messages = await this.lines(entries);
    const named = (m: TeamMessage | undefined, i: number) =>
      m !== undefined && m.seq === entries[i]![0] && (opts.recipient === undefined || m.recipient === opts.recipient || m.recipient === "*");
    if (!messages.every(named)) return undefined;
    return { messages: messages as TeamMessage[], total, last_seq: index.last_seq };
  }

  /**
   * Moves the log and index into `target` (archiving); the caller must hold `locked`. Returns the
   * message count. A linked folder on the way (a repository can commit `teams/archive → /elsewhere`)
   * throws StateError before anything moves: keel's files never leave `.keel` through a link.
   */
  async archiveLocked(target: string): Promise<number> {
    const index = await this.current(false);
    assertOwnPath(target, true);
    await mkdir(target, { recursive: true });
    for (const file of [this.logFile, this.indexFile]) {
      await rename(file, join(target, file === this.logFile ? "messages.jsonl" : "index.json")).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
    }
    return index.last_seq;
  }

  /** The index, caught up with the log's tail; with `repair`, a torn last line is truncated away; with `rebuild`, made from the whole log. */
  private async current(repair: boolean, rebuild = false): Promise<LogIndex> {
    let index = rebuild
      ? emptyIndex()
      : await readJsonState<LogIndex>(this.indexFile, emptyIndex()).catch((error) => {
          if (error instanceof StateError) return emptyIndex(); // a cache: rebuilt from the log
          throw error;
        });
    // A link planted at the log (a repository can commit .keel) is not read: the log counts as empty
    // until the next append replaces the link (withFileLock).
    const size = await lstat(this.logFile).then(
      (s) => (s.isFile() ? s.size : 0),
      () => 0,
    );
    // The index is a cache, and a repository can commit it: one keel could not have written for this log is rebuilt from the log.
    if (!indexFits(index, size)) index = emptyIndex();
    if (size === index.bytes) return index;
    if (size - index.bytes > MAX_STATE_TEXT_BYTES)
      throw new StateError(
        `Message log ${this.logFile} holds ${Math.ceil((size - index.bytes) / 1024 / 1024)} MiB its index does not cover, more than keel reads of a state file (${MAX_STATE_TEXT_BYTES / 1024 / 1024} MiB). keel left it untouched: move the team's folder away (or \`keel team delete\` it), then retry.`,
        this.logFile,
      );
    // Read from the byte before: an index whose end is not the end of a line is not this log's (it was replaced).
    const from = Math.max(0, index.bytes - 1);
    const read = await this.slice(from, size - from);
    if (index.bytes > 0 && read[0] !== 0x0a && !rebuild) return this.current(repair, true);
    const tail = index.bytes > 0 ? read.subarray(1) : read;
    const end = tail.lastIndexOf(0x0a) + 1;
    let offset = index.bytes;
    for (const text of tail.subarray(0, end).toString("utf8").split("\n").slice(0, -1)) {
      const length = Buffer.byteLength(text) + 1;
      let msg: TeamMessage;
      try {
        msg = parseLine(text, this.logFile);
      } catch (error) {
        if (rebuild || index.bytes === 0) throw error;
        return this.current(repair, true); // a stale index's end can fall on a line that only looks whole
      }
      addEntry(index, msg, offset, length);
      offset += length;
    }
    index.bytes = offset;
    if (repair && end < tail.length) {
      const handle = await open(this.logFile, "r+");
      try {
        await handle.truncate(offset);
      } finally {
        await handle.close();
      }
    }
    return index;
  }

  /** True when the index's last line holds the message its entry names (one line read); false for a stale index. */
  private async lastLineNamed(index: LogIndex): Promise<boolean> {
    if (index.bytes === 0) return true;
    for (const [key, entries] of Object.entries(index.recipients))
      for (const e of entries)
        if (e[1] + e[2] === index.bytes) {
          const [msg] = await this.lines([e]);
          return msg?.seq === e[0] && `@${msg.recipient}` === key;
        }
    return false;
  }

  /** The messages at the entries' places; undefined for a place that holds no whole message (a stale index). */
  private async lines(entries: Entry[]): Promise<(TeamMessage | undefined)[]> {
    if (entries.length === 0) return [];
    const handle = await open(this.logFile, ownReadFlags(this.logFile));
    try {
      const out: (TeamMessage | undefined)[] = [];
      for (const [, offset, length] of entries) {
        const buf = Buffer.alloc(length);
        await handle.read(buf, 0, length, offset);
        let msg: unknown;
        try {
          msg = buf[length - 1] === 0x0a ? JSON.parse(buf.toString("utf8")) : undefined;
        } catch {
          msg = undefined;
        }
        out.push(typeof msg === "object" && msg !== null ? (msg as TeamMessage) : undefined);
      }
      return out;
    } finally {
      await handle.close();
    }
  }

  private async slice(offset: number, length: number): Promise<Buffer> {
    const handle = await open(this.logFile, ownReadFlags(this.logFile));
    try {
      const buf = Buffer.alloc(length);
      await handle.read(buf, 0, length, offset);
      return buf;
    } finally {
      await handle.close();
    }
  }
}

function parseLine(text: string, file: string): TeamMessage {
  try {
    return JSON.parse(text) as TeamMessage;
  } catch {
    throw new StateError(`Message log ${file} has a line that is not valid JSON. keel left it untouched: fix or move it, then retry.`, file);
  }
}
