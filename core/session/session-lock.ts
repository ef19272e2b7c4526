import { closeSync, linkSync, lstatSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { StateError } from "../errors.js";
import { readJsonStateSync, withFileLock } from "../state/json-file.js";
import { assertOwnPath } from "../state/own-path.js";
import { storageMessage } from "../state/storage-problem.js";

/** A held writer lock; `release` is idempotent. */
export interface SessionLock {
  release(): void;
}

/**
 * Takes the one-writer lock of a session: a `writer.lock` file holding the owner's pid,
 * created exclusively and never empty. A lock whose owner process is gone (crash, kill -9) is taken over;
 * a live owner makes this throw a StateError that says what to do instead, and so does a session
 * folder that is a symlink (keel never writes through one).
 */
export async function acquireSessionLock(file: string, sessionId: string): Promise<SessionLock> {
  assertOwnPath(file);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      createWithContent(file, JSON.stringify({ pid: process.pid, since: new Date().toISOString(), boot: bootId() }));
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          if (lockOwner(file) === process.pid) rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw new StateError(`Cannot lock session ${sessionId}: ${storageMessage(error, file)}`, file);
      assertNoLiveOwner(file, sessionId);
      // Several processes can find the same dead owner (two resumes of a crashed session): each looks
      // again under a lock of its own before removing, so none removes the lock another has just taken.
      // Only a stale lock still there is removed: once it is gone, a new one can appear at any moment.
      await withFileLock(file, async () => {
        const found = lstatSync(file, { throwIfNoEntry: false });
        if (!found) return;
        assertNoLiveOwner(file, sessionId);
        // keel's lock is a file: a folder there (committed with the repository) is no lock, and is removed whole.
        rmSync(file, { force: true, recursive: found.isDirectory() });
      });
    }
  }
  throw new StateError(`Could not lock session ${sessionId}; another keel process keeps taking it. Retry.`, file);
}

/** Throws the "busy" StateError when the lock at `file` is held by a live process. */
function assertNoLiveOwner(file: string, sessionId: string): void {
  const owner = lockOwner(file);
  if (owner !== undefined && isAlive(owner))
    throw new StateError(
      `Session ${sessionId} is busy: keel process ${owner} is running it. Wait for it to finish, or queue a message with \`keel send ${sessionId} "…"\`.`,
      file,
    );
}

/**
 * Creates `file` holding `text`, or throws EEXIST when it exists: the content is written to a
 * private temp file first and hard-linked into place, so the lock never exists empty (a reader that
 * saw an empty lock would take it for stale: two writers, or a follower that stops at once).
 */
function createWithContent(file: string, text: string): void {
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  const fd = openSync(temp, "wx");
  try {
    try {
      const bytes = Buffer.from(text);
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
    } finally {
      closeSync(fd);
    }
    linkSync(temp, file);
  } finally {
    // also when the write failed (a full disk): no temp file is left in the session's folder
    rmSync(temp, { force: true });
  }
}

/**
 * pid recorded in a lock file, if readable. Where the boot has an id (Linux), a lock that does not name this boot has
 * no owner: one taken before the machine restarted (its pid may now belong to another program, which would hold the
 * session forever), and one a repository committed or `git pull` wrote (`{"pid": 1}` held a session "busy" for good).
 */
export function lockOwner(file: string): number | undefined {
  try {
    const lock = readJsonStateSync<{ pid?: unknown; boot?: unknown } | null>(file, null);
    const pid = Number(lock?.pid);
    const boot = bootId();
    if (boot !== undefined && lock?.boot !== boot) return undefined;
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** This boot's id (Linux: `/proc/sys/kernel/random/boot_id`, new at every start of the machine); undefined elsewhere. */
function bootId(): string | undefined {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * True if a process with this pid exists and has not exited: a zombie (killed, not yet reaped by its
 * parent — a supervisor or terminal busy elsewhere) holds no lock, so its session can be taken over at once.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return !isZombie(pid);
}

/** True when Linux's `/proc/<pid>/stat` says the process has exited (state `Z`); false elsewhere or when unreadable. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // `pid (comm) S …`: comm may hold spaces and parentheses, the state follows the last ")"
    return stat.charAt(stat.lastIndexOf(")") + 2) === "Z";
  } catch {
    return false;
  }
}

/** True when a session's writer lock is held by a live process (a `running` session without one was interrupted). */
export function writerAlive(file: string): boolean {
  const owner = lockOwner(file);
  return owner !== undefined && isAlive(owner);
}
