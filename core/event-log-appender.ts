import { closeSync, existsSync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, readSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { assertOwnPath, openOwnFileSync, PRIVATE_DIR_MODE } from "./state/own-path.js";

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
   * Writes `text` (whole lines) in full (a `write` may write only part of it: a disk that fills up mid-line),
   * or, when a write fails, cuts the file back to its last whole line and throws (the caller keeps `text`).
   */
  append(text: string): void {
    const bytes = Buffer.from(this.torn ? "\n" + text : text);
    let at = 0;
    try {
      while (at < bytes.length) at += writeSync(this.fd, bytes, at, bytes.length - at);
    } catch (error) {
      if (at > 0) this.cutBack();
      throw error;
    }
    this.written += at;
    this.torn = false;
  }

  /** fdatasync: what was appended survives a crash of the machine. Throws the system error. */
  sync(): void {
    fdatasyncSync(this.fd);
  }

  /** Closes the file. */
  close(): void {
    closeSync(this.fd);
  }

  /** After a partial write: the file back to `written` bytes, or (when that fails) the next write starts a new line. */
  private cutBack(): void {
    try {
      ftruncateSync(this.fd, this.written);
    } catch {
      this.torn = true;
      this.written = fstatSync(this.fd).size;
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
