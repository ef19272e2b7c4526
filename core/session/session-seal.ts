import { createHmac, randomBytes, timingSafeEqual } from "../lazy-crypto.js";
import { existsSync, linkSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StateError, errorMessage } from "../errors.js";
import { SESSION_KEY_FILE } from "../keel-home-secrets.js";
import { readStateTextSync } from "../state/json-file.js";
import { storageMessage, storageProblem } from "../state/storage-problem.js";
import { writeOwnFileSync } from "../state/own-path.js";
import type { Workspace } from "../workspace.js";
import { sessionPaths } from "./session-paths.js";

/** The user's secret for sealing sessions: `$KEEL_HOME/session-key` (random, 0600, made on first use). */
function keyFile(keelHome: string): string {
  return join(keelHome, SESSION_KEY_FILE);
}

/**
 * The user's session key, created on first use: written whole to a temporary file, then linked into
 * place (so a process starting at the same moment never reads half a key, and the first key made
 * wins). Throws StateError (saying what to do) when it can be neither read nor created.
 */
function sessionKey(keelHome: string): Buffer {
  const file = keyFile(keelHome);
  if (!existsSync(file)) {
    const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    try {
      mkdirSync(keelHome, { recursive: true, mode: 0o700 });
      writeFileSync(temp, randomBytes(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" });
      linkSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
        // a full disk, a quota, a read-only $KEEL_HOME: say which, and what to do about that
        const why = storageProblem(error) !== undefined ? storageMessage(error, file) : `${errorMessage(error)}. Make $KEEL_HOME writable.`;
        throw new StateError(`keel could not create its session key ${file}: ${why}`, file, { cause: error });
      }
    } finally {
      rmSync(temp, { force: true });
    }
  }
  const text = readFileSync(file, "utf8").trim();
  if (!/^[0-9a-f]{64}$/.test(text))
    throw new StateError(`keel's session key ${file} is not a key it wrote. Delete it (sessions sealed with it must then be adopted again).`, file);
  return Buffer.from(text, "hex");
}

/** Largest `seal` file read (a seal is 65 bytes; a huge file committed in its place is not read). */
const MAX_SEAL_BYTES = 256;

/**
 * The seals of one workspace's sessions, for the user whose `$KEEL_HOME` holds the key (read once
 * per instance). A repository can commit `.keel/sessions/`, and a committed session's messages would
 * reach the model as the user's own words: only a session whose `seal` was made with the user's key
 * — which no file in a workspace can supply — is continued. Seals are checked for the id asked for,
 * never the id a `session.json` claims.
 */
export class SessionSeals {
  private key: Buffer | undefined;

  constructor(private readonly ws: Pick<Workspace, "keelHome" | "stateDir">) {}

  /** True when keel started (or the user adopted) session `id` for this user. Never throws. */
  isYours(id: string, createdAt: unknown): boolean {
    try {
      const file = sessionPaths(this.ws.stateDir, id).seal;
      const st = lstatSync(file, { throwIfNoEntry: false });
      if (!st?.isFile() || st.size > MAX_SEAL_BYTES) return false;
      const found = Buffer.from((readStateTextSync(file) ?? "").trim(), "utf8");
      const want = Buffer.from(this.sealOf(id, createdAt), "utf8");
      return found.length === want.length && timingSafeEqual(found, want);
    } catch {
      return false;
    }
  }

  /** Seals session `id` (keel started it, or the user adopts it). Throws StateError when the key cannot be made. */
  seal(id: string, createdAt: unknown): void {
    writeOwnFileSync(sessionPaths(this.ws.stateDir, id).seal, this.sealOf(id, createdAt) + "\n");
  }

  /**
   * Seals a session keel has just created. Best effort: without a usable `$KEEL_HOME` (full, read-only) the session
   * runs but cannot be resumed until the user adopts it; returns then why, with that way out, for a warning. Never throws.
   */
  sealNew(id: string, createdAt: unknown): string | undefined {
    try {
      this.seal(id, createdAt);
      return undefined;
    } catch (error) {
      return `session ${id} could not be sealed as yours (${errorMessage(error)}), so it cannot be resumed as it is: once that is fixed, run \`keel sessions adopt ${id}\` to resume it`;
    }
  }

  /**
   * An HMAC, under the user's key, of `text` as the `kind` file (`state`, `queue`) of session `id`:
   * what keel wrote there, which no file in a workspace can vouch for. Throws StateError when the key cannot be made.
   */
  contentMac(id: string, kind: string, text: string): string {
    this.key ??= sessionKey(this.ws.keelHome);
    return createHmac("sha256", this.key).update(`keel-session-${kind}-v1\n${id}\n`).update(text).digest("hex");
  }

  /** True when `mac` is `contentMac(id, kind, text)`. Never throws (false without a usable key). */
  contentMacMatches(id: string, kind: string, text: string, mac: unknown): boolean {
    try {
      if (typeof mac !== "string") return false;
      const want = Buffer.from(this.contentMac(id, kind, text), "utf8");
      const found = Buffer.from(mac, "utf8");
      return found.length === want.length && timingSafeEqual(found, want);
    } catch {
      return false;
    }
  }

  /** An HMAC, under the user's key, of the session's id and creation time. */
  private sealOf(id: string, createdAt: unknown): string {
    this.key ??= sessionKey(this.ws.keelHome);
    return createHmac("sha256", this.key)
      .update(`keel-session-v1\n${id}\n${String(createdAt)}`)
      .digest("hex");
  }
}

/** Why keel does not continue an unsealed session, and what to do. */
export function notSealedMessage(id: string): string {
  return (
    `Session ${id} was not started by keel for you here: its files came with the workspace (committed to the repository, ` +
    `copied from elsewhere) or predate session seals. keel does not continue a conversation it did not hold for you: ` +
    `its messages would reach the model as your own words. Nothing was run. Start a new session, or read it ` +
    `(keel sessions show ${id}) and, if you trust every message in it, keel sessions adopt ${id}.`
  );
}

/** Why keel does not continue a session of yours whose files changed outside keel (`problem`), and what to do. */
export function changedFilesMessage(id: string, problem: string): string {
  return (
    `Session ${id} was not continued: ${problem}. A repository can write into a session's folder (git pull writes over ` +
    `the ignored files in .keel/), and keel does not send messages it did not hold for you as your own words or run a call ` +
    `you have not seen. Nothing was run. Read it (keel sessions show ${id}) and, if you trust every message in it, ` +
    `keel sessions adopt ${id}; or start a new session.`
  );
}
