import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StateError, errorMessage } from "../errors.js";
import { readStateTextSync } from "../state/json-file.js";
import { writeOwnFileSync } from "../state/own-path.js";
import type { SessionMeta } from "./session-types.js";

/** The user's secret for sealing sessions: `$KEEL_HOME/session-key` (random, 0600, made on first use). */
function keyFile(keelHome: string): string {
  return join(keelHome, "session-key");
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
      if ((error as NodeJS.ErrnoException).code !== "EEXIST")
        throw new StateError(`keel could not create its session key ${file}: ${errorMessage(error)}. Make $KEEL_HOME writable.`, file, { cause: error });
    } finally {
      rmSync(temp, { force: true });
    }
  }
  const text = readFileSync(file, "utf8").trim();
  if (!/^[0-9a-f]{64}$/.test(text))
    throw new StateError(`keel's session key ${file} is not a key it wrote. Delete it (sessions sealed with it must then be adopted again).`, file);
  return Buffer.from(text, "hex");
}

/** The seal of a session: an HMAC, under the user's key, of its id and creation time. */
function sealOf(key: Buffer, meta: Pick<SessionMeta, "id" | "createdAt">): string {
  return createHmac("sha256", key).update(`keel-session-v1\n${meta.id}\n${meta.createdAt}`).digest("hex");
}

/**
 * Marks a session as started by keel for this user: writes `seal` in its folder (`sealFile`).
 * A repository can commit `.keel/sessions/`, and a committed session's messages would reach the
 * model as the user's own words: only sessions carrying a seal made with the user's key (in
 * `$KEEL_HOME`, never in the workspace) are continued (`isSealed`). Throws StateError when the key
 * cannot be made.
 */
export function sealSession(keelHome: string, sealFile: string, meta: Pick<SessionMeta, "id" | "createdAt">): void {
  writeOwnFileSync(sealFile, sealOf(sessionKey(keelHome), meta) + "\n");
}

/** True when the session's `seal` was made with this user's key for this id and creation time. Never throws. */
export function isSealed(keelHome: string, sealFile: string, meta: Pick<SessionMeta, "id" | "createdAt">): boolean {
  try {
    const found = Buffer.from((readStateTextSync(sealFile) ?? "").trim(), "utf8");
    const want = Buffer.from(sealOf(sessionKey(keelHome), meta), "utf8");
    return found.length === want.length && timingSafeEqual(found, want);
  } catch {
    return false;
  }
}

/**
 * Seals a session keel has just created. Best effort: without a usable `$KEEL_HOME` the session
 * runs but cannot be resumed until the user adopts it (`notSealedMessage` says how).
 */
export function sealNewSession(keelHome: string, sealFile: string, meta: Pick<SessionMeta, "id" | "createdAt">): void {
  try {
    sealSession(keelHome, sealFile, meta);
  } catch {
    // resume refuses it with notSealedMessage, which names the way out
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
