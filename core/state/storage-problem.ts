import { accessSync, constants, statSync, type Stats } from "node:fs";
import { dirname } from "node:path";
import { errorMessage } from "../errors.js";
import { PATH_MAX } from "../real-path.js";

/** What an errno a file system gives means, and what the user can do about it. */
const MEANINGS: Record<string, { meaning: string; todo: string }> = {
  ENOSPC: { meaning: "the disk is full", todo: "free space on that disk, then retry" },
  EDQUOT: {
    meaning: "your disk quota on that file system is used up",
    todo: "free space in it (delete or move files of yours there) or ask for a larger quota, then retry",
  },
  EFBIG: {
    meaning: "the file would grow past the largest file size allowed, by the process's `ulimit -f` or by the file system",
    todo: "raise the limit (`ulimit -f unlimited` in the shell that starts keel) or, on a file system of small files such as FAT, work on another one, then retry",
  },
  EROFS: {
    meaning: "the file system is read-only",
    todo: "keel needs to write there: make it writable (or work in a writable copy), then retry; commands that only read (tools, plugins, mcp list, a read-only call) work without it",
  },
  EACCES: { meaning: "permission denied", todo: "give your user write access to it (or run keel as its owner), then retry" },
  EPERM: { meaning: "the operation is not permitted", todo: "give your user write access to it (or run keel as its owner), then retry" },
  ENOTDIR: { meaning: "a file stands where keel needs a folder", todo: "move that file away (keel makes the folder), then retry" },
  EEXIST: { meaning: "a file stands where keel needs a folder", todo: "move that file away (keel makes the folder), then retry" },
  EISDIR: { meaning: "a folder stands where keel needs a file", todo: "move that folder away, then retry" },
};

/**
 * The plain-language reason a file system operation failed, with what to do next, for the errno codes a
 * full, read-only or foreign-owned disk gives (ENOSPC, EDQUOT, EFBIG, EROFS, EACCES, EPERM, and a file where a
 * folder belongs: ENOTDIR, EEXIST from mkdir, EISDIR), and for a name or path too long (ENAMETOOLONG: how many bytes,
 * the limit, what to do; the path itself is left out); undefined for any other error. Node's recursive `mkdir`
 * reports ENOENT when it cannot create a folder in a read-only or unwritable parent: that case is re-diagnosed
 * from the nearest existing folder. Never throws.
 */
export function storageProblem(error: unknown): { code: string; meaning: string; todo: string; path?: string } | undefined {
  const e = error as NodeJS.ErrnoException | undefined;
  if (typeof e?.code !== "string") return undefined;
  let code = e.code;
  let path = typeof e.path === "string" ? e.path : undefined;
  if (code === "ENAMETOOLONG") return { code, ...nameTooLong(path ?? "") };
  if (code === "EEXIST" && e.syscall !== "mkdir") return undefined;
  if (code === "ENOENT" && e.syscall === "mkdir" && path !== undefined) {
    const found = blockedFolder(path);
    if (found === undefined) return undefined;
    ({ code, path } = found);
  }
  const known = MEANINGS[code];
  if (known === undefined) return undefined;
  // A file where a folder belongs: name the file to move (ENOTDIR names the path below it).
  const blocker = code === "ENOTDIR" && path !== undefined ? (fileOnTheWay(path) ?? path) : path;
  const todo = (code === "ENOTDIR" || code === "EEXIST") && blocker !== undefined ? known.todo.replace("that file", blocker) : known.todo;
  return { code, meaning: known.meaning, todo, ...(path !== undefined ? { path } : {}) };
}

/**
 * What `error` means and what to do, with its message, when it is a storage problem (`storageProblem`): e.g.
 * "the disk is full (ENOSPC: no space left on device, write) at FILE; free space on that disk, then retry.", naming
 * `file` when the error does not name a path itself (a failed `write`); else just its message. Never throws.
 */
export function storageMessage(error: unknown, file?: string): string {
  const problem = storageProblem(error);
  const message = errorMessage(error);
  if (problem === undefined) return message;
  // Node's message repeats the whole over-long path (thousands of characters): the meaning names what is too long.
  if (problem.code === "ENAMETOOLONG") return `${problem.meaning} (ENAMETOOLONG); ${problem.todo}.`;
  if (problem.code !== (error as NodeJS.ErrnoException).code)
    // re-diagnosed: Node said ENOENT for a folder it could not make below `problem.path`
    return `${problem.meaning} (${problem.code} at ${problem.path}: ${message}); ${problem.todo}.`;
  const where = problem.path ?? file;
  const named = where !== undefined && !message.includes(where) ? ` at ${where}` : "";
  return `${problem.meaning} (${message})${named}; ${problem.todo}.`;
}

/** Errno codes whose meaning and advice hold whatever the failed operation was (a tool's read as well as its write). */
const ANY_OPERATION: ReadonlySet<string> = new Set(["ENOSPC", "EDQUOT", "EFBIG", "EROFS", "ENAMETOOLONG"]);

/**
 * `storageMessage` for an error a tool's own file operation met, which may be a read of the user's file: only a full
 * disk, an exhausted quota, a size limit, a read-only file system or a name or path too long are explained. Any other error is its message as
 * it is: the advice for keel's own state ("move that file away (keel makes the folder)", "give your user write
 * access") would steer the model wrong after a read (`read_file` of `notes.txt/x`, of a file it may not read). Never throws.
 */
export function toolStorageMessage(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" && ANY_OPERATION.has(code) ? storageMessage(error) : errorMessage(error);
}

/** Longest name (bytes) of one file or folder on Linux file systems (NAME_MAX); the longest path is real-path's PATH_MAX. */
const NAME_MAX = 255;

/** What is too long in `path`: its longest name when that is over NAME_MAX, else the whole path. */
function nameTooLong(path: string): { meaning: string; todo: string } {
  const names = path.split("/");
  const longest = names.reduce((a, b) => (Buffer.byteLength(b) > Buffer.byteLength(a) ? b : a), "");
  const bytes = Buffer.byteLength(longest);
  if (bytes > NAME_MAX)
    return {
      meaning: `the name ${shortened(longest)} is too long: ${bytes} bytes, over the limit of ${NAME_MAX} bytes for one file or folder name`,
      todo: `use a name of at most ${NAME_MAX} bytes (a character outside ASCII takes 2 to 4)`,
    };
  return {
    meaning: `the path is too long: ${Buffer.byteLength(path)} bytes, over the limit of ${PATH_MAX - 1} bytes for a whole path`,
    todo: "use a shorter path (fewer or shorter folder names)",
  };
}

/** What a file tool says of a path too long for the system (see nameTooLong), without repeating it. */
export function pathTooLongMessage(path: string): string {
  const { meaning, todo } = nameTooLong(path);
  return `${meaning} (ENAMETOOLONG); ${todo}.`;
}

/** `text` as JSON, cut to its first 40 characters with `…` when longer. */
function shortened(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** The nearest of `path` and its ancestors that exists and is not a folder. */
function fileOnTheWay(path: string): string | undefined {
  for (let dir = path, prev = ""; dir !== prev; prev = dir, dir = dirname(dir)) {
    const stat = statOrUndefined(dir);
    if (stat !== undefined) return stat.isDirectory() ? undefined : dir;
  }
  return undefined;
}

/** For a folder `path` that recursive mkdir could not make (ENOENT): the nearest existing ancestor and why it blocks. */
function blockedFolder(path: string): { code: string; path: string } | undefined {
  for (let dir = dirname(path), prev = path; dir !== prev; prev = dir, dir = dirname(dir)) {
    const stat = statOrUndefined(dir);
    if (stat === undefined) continue;
    if (!stat.isDirectory()) return { code: "ENOTDIR", path: dir };
    try {
      accessSync(dir, constants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === undefined ? undefined : { code, path: dir };
    }
    return undefined;
  }
  return undefined;
}

/** stat (following links: `/proc/self/fd/N` names a folder), or undefined when there is nothing there (also ENOTDIR: a file on the way). */
function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
