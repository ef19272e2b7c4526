import { closeSync, existsSync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, readSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { StateError, errorMessage } from "./errors.js";
import { assertOwnPath, openOwnFileSync, PRIVATE_DIR_MODE } from "./state/own-path.js";
import { storageMessage } from "./state/storage-problem.js";

/**
 * keel's event log open for appending whole lines, all or nothing: `append` writes its text in full or
 * leaves the file as it was (a disk that fills up mid-line is cut back to the last whole line), so a full
 * disk never leaves a torn line that the next write would glue to another event. The file is keel's own: a
 * symlinked folder on its way under `.keel` is refused (StateError) and a symlink at the file itself is
 * replaced, never written through.
 */
export class EventLogAppender {
  /** Size of the file after the last write. */
  private written: number;
  /** The file ends in part of a line that could not be cut back after a failed write: the next write starts a new line. */
  private torn = false;

  private constructor(
    readonly file: string,
    private readonly fd: number,
  ) {
    this.written = fstatSync(fd).size;
  }

  /** Opens `file` for appending (creating its folder), ending a torn last line (a crash mid-write). Throws the system error or StateError. */
  static open(file: string): EventLogAppender {
    // Never through a link planted in the repository: linked folders are refused, a linked file replaced.
    assertOwnPath(file);
    if (!existsSync(dirname(file))) mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
    const fd = openOwnFileSync(file, "append");
    try {
      endTornLine(fd);
      return new EventLogAppender(file, fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Size of the file with everything appended so far. */
  get size(): number {
    return this.written;
  }

  /**
   * Writes `text` (whole lines) in full (a `write` may write only part of it: a disk that fills up mid-line):
   * undefined. When a write fails, the file is cut back to its last whole line, and the answer is the error
   * (StateError saying what happened and what to do, `storageMessage`; its cause the write's error) and the
   * part of `text` not written, which the caller keeps pending. When the cut back fails too, the error says so
   * as well, the whole lines that were written stay written (they are not in `rest`), and the next `append`
   * starts on a new line. Never throws.
   */
  append(text: string): { error: StateError; rest: string } | undefined {
    const lead = this.torn ? "\n" : "";
    const bytes = Buffer.from(lead + text);
    let at = 0;
    try {
      while (at < bytes.length) at += writeSync(this.fd, bytes, at, bytes.length - at);
    } catch (error) {
      const uncut = at > 0 ? this.cutBack(at) : undefined;
      const message = `Could not write keel's event log ${this.file}: ${storageMessage(error, this.file)}${uncut ?? ""}`;
      // Lines written whole before a cut back that failed are in the log: not to be written again.
      const whole = uncut === undefined ? 0 : bytes.lastIndexOf(0x0a, at - 1) + 1;
      const rest = whole > lead.length ? bytes.subarray(whole).toString() : text;
      return { error: new StateError(message, this.file, { cause: error }), rest };
    }
    this.written += at;
    this.torn = false;
    return undefined;
  }

  /** fdatasync: what was appended survives a crash of the machine. Throws the system error. */
  sync(): void {
    fdatasyncSync(this.fd);
  }

  /** Closes the file. */
  close(): void {
    closeSync(this.fd);
  }

  /**
   * After a write that wrote `at` bytes and failed: the file back to `written` bytes; when that fails, the
   * next write starts a new line, and what to add to the write's error (the failures of the cut back), else undefined.
   */
  private cutBack(at: number): string | undefined {
    try {
      ftruncateSync(this.fd, this.written);
      return undefined;
    } catch (truncateError) {
      this.torn = true;
      try {
        this.written = fstatSync(this.fd).size;
      } catch (statError) {
        // The part written is still there (the cut back failed), unless another process appended meanwhile.
        this.written += at;
        return ` Part of a line stayed in the log: keel could not cut it back (${errorMessage(truncateError)}), nor read the log's size (${errorMessage(statError)}); the next event starts on a new line.`;
      }
      return ` Part of a line stayed in the log: keel could not cut it back (${errorMessage(truncateError)}); the next event starts on a new line.`;
    }
  }
}

/** If the file ends in a torn line (a crash mid-write), ends it so the next event starts on its own line. */
function endTornLine(fd: number): void {
  const size = fstatSync(fd).size;
  if (size === 0) return;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  if (last[0] !== 0x0a) writeSync(fd, "\n");
}
