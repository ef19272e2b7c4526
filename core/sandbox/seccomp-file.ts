import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmdirSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolError } from "../errors.js";
import { realOrSelf } from "../real-path.js";
import { inside } from "../tools/confine-path.js";
import { unixSocketFilter } from "./seccomp-filter.js";

/**
 * The seccomp filter as a file bwrap's `--seccomp FD` can be fed from, for spawn lines that cannot pass
 * extra file descriptors (the MCP SDK's stdio transport): written once into a fresh 0700 folder outside
 * the workspace, opened read-only, then unlinked, so no path on disk leads to it any more — nothing can
 * replace it, and nothing is left behind. A process keel starts reopens it as `/proc/<keel's pid>/fd/<fd>`
 * (its own read offset, from the start) before bwrap runs; a sandboxed process, in its own PID namespace
 * with its own `/proc`, cannot. Holds one file descriptor until `close`.
 */
export class SeccompFilterFile {
  private fd: number | undefined;

  /** `avoid`: folders a sandboxed command may write (the workspace), where the filter is never written. */
  constructor(private readonly avoid: () => readonly string[]) {}

  /** The path a child of this process opens to read the filter. Throws ToolError(`precondition_failed`) when it cannot be made. */
  path(): string {
    this.fd ??= this.open();
    return `/proc/${process.pid}/fd/${this.fd}`;
  }

  /** Releases the file descriptor (a later `path` makes a new one). Never throws. */
  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    this.fd = undefined;
  }

  private open(): number {
    const program = unixSocketFilter();
    const base = this.folder();
    const dir = mkdtempSync(join(base, "keel-seccomp-"));
    const file = join(dir, "filter.bpf");
    let fd: number | undefined;
    try {
      writeFileSync(file, program, { flag: "wx", mode: 0o400 });
      fd = openSync(file, "r");
    } finally {
      try {
        unlinkSync(file);
      } catch {
        // not written
      }
      rmdirSync(dir);
    }
    // What was opened is the program keel wrote, and nothing on disk leads to it any more.
    const stat = fstatSync(fd);
    const read = Buffer.alloc(program.length + 1);
    const got = readSync(fd, read, 0, read.length, 0);
    if (!stat.isFile() || stat.nlink !== 0 || got !== program.length || !read.subarray(0, got).equals(program)) {
      closeSync(fd);
      throw failure(`the file written in ${base} changed before keel opened it`);
    }
    return fd;
  }

  /** The system's temporary folder (`$TMPDIR`, else `/tmp`), unless a sandboxed command could write there. */
  private folder(): string {
    const avoid = this.avoid().map(realOrSelf);
    for (const candidate of [tmpdir(), "/tmp"]) {
      const real = realOrSelf(candidate);
      if (!avoid.some((dir) => inside(dir, real))) return real;
    }
    throw failure(
      `the temporary folder (${tmpdir()}) is inside the workspace, where a sandboxed command could replace the filter; set TMPDIR to a folder outside it`,
    );
  }
}

function failure(why: string): ToolError {
  return new ToolError(`keel cannot write the seccomp filter that keeps sandboxed commands off Unix sockets: ${why}.`, "precondition_failed");
}
