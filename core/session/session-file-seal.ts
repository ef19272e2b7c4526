import { createHash } from "../lazy-crypto.js";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { ownReadFlags } from "../state/own-path.js";
import type { QueuedMessage } from "./message-queue.js";
import type { SessionSeals } from "./session-seal.js";

/** How much of a session's log, up to its checkpoint's offset, the checkpoint names (see `logIdentity`). */
const LOG_WINDOW_BYTES = 64 * 1024;

/**
 * What a checkpoint records of its log `file`: the length and SHA-256 of the bytes just before
 * `offset` (at most LOG_WINDOW_BYTES), which keel wrote and never changes (the log only grows). They
 * hold something no repository knows — a random `nonce` (session_start, session_adopted), or the
 * user's own conversation — so a log git wrote in its place (`git pull` overwrites ignored files
 * silently) cannot end its checkpointed part as keel's did. Never throws.
 */
export function logIdentity(file: string, offset: number): string {
  const length = Math.min(offset, LOG_WINDOW_BYTES);
  const bytes = readRange(file, offset - length, length);
  return `${bytes.length}:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** True when the log `file` still holds what `recorded` (a `logIdentity` for `offset`) says. Never throws. */
function logHolds(file: string, offset: unknown, recorded: unknown): boolean {
  const match = typeof recorded === "string" ? /^(\d+):([0-9a-f]{64})$/.exec(recorded) : null;
  if (!match || !Number.isSafeInteger(offset) || Number(match[1]) !== Math.min(offset as number, LOG_WINDOW_BYTES)) return false;
  return logIdentity(file, offset as number) === recorded;
}

/** `length` bytes of `file` from `start` (fewer when it is shorter), read as keel reads its own files; empty when there is none (or it is not a regular file). */
function readRange(file: string, start: number, length: number): Buffer {
  let fd: number;
  try {
    fd = openSync(file, ownReadFlags(file));
  } catch {
    return Buffer.alloc(0);
  }
  try {
    if (!fstatSync(fd).isFile()) return Buffer.alloc(0);
    const buf = Buffer.alloc(length);
    let got = 0;
    for (let n = 1; got < length && n > 0; got += n) n = readSync(fd, buf, got, length - got, start + got);
    return buf.subarray(0, got);
  } catch {
    return Buffer.alloc(0);
  } finally {
    closeSync(fd);
  }
}

/**
 * The text keel writes as a session's checkpoint for `body` (the JSON text of the snapshot): `body`
 * with a last field `"mac"`, an HMAC of `body` under the user's session key, when `seals` can make
 * one (else `body` as is, which a resume then refuses, as it refuses a session it could not seal).
 */
export function sealedSnapshotText(body: string, id: string, seals: SessionSeals | undefined): string {
  if (!seals || !body.endsWith("}")) return body;
  try {
    return `${body.slice(0, -1)},"mac":"${seals.contentMac(id, "state", body)}"}`;
  } catch {
    return body;
  }
}

const MAC_FIELD = /,"mac":"([0-9a-f]{64})"\}\s*$/;

/**
 * Why session `id`'s files are not those keel left (undefined when they are): its checkpoint `text`
 * must carry keel's MAC of itself (`sealedSnapshotText`), and its log (`eventsFile`) must hold what
 * the checkpoint says it held up to its offset (`log`, see `logIdentity`). A repository can commit files into a session's
 * folder, and `git pull` writes them over keel's own (`.keel/` is ignored, and git overwrites ignored
 * files): the session's seal proves only who started it, these prove its conversation is the one keel held.
 * Reads the checkpoint's text and at most LOG_WINDOW_BYTES of the log, never the whole log; `snapshot`
 * is `text` already parsed, when the caller has it (else it is parsed here, once the MAC holds).
 */
export function sessionFilesProblem(
  text: string,
  id: string,
  eventsFile: string,
  seals: SessionSeals,
  snapshot?: { log?: unknown; logOffset?: unknown },
): string | undefined {
  const mac = MAC_FIELD.exec(text);
  if (!mac || !seals.contentMacMatches(id, "state", `${text.slice(0, mac.index)}}`, mac[1]))
    return "its checkpoint state.json is not one keel wrote (it came with the workspace, or predates keel's checks of session files)";
  const fields = snapshot ?? parsedFields(text);
  if (!logHolds(eventsFile, fields?.logOffset, fields?.log))
    return "its log events.jsonl is not the one keel has been writing (it was replaced since keel's last checkpoint)";
  return undefined;
}

function parsedFields(text: string): { log?: unknown; logOffset?: unknown } | undefined {
  try {
    return JSON.parse(text) as { log?: unknown; logOffset?: unknown };
  } catch {
    return undefined;
  }
}

/** A queued message with keel's MAC of it for session `id` (see `queuedMessageIsKeels`). Throws StateError when the key cannot be made. */
export function sealQueuedMessage(message: QueuedMessage, id: string, seals: SessionSeals): QueuedMessage {
  const sealed: QueuedMessage = { text: message.text, at: message.at, ...(message.from === "tool" ? { from: message.from } : {}) };
  return { ...sealed, mac: seals.contentMac(id, "queue", queuedMacInput(sealed)) };
}

/** What a queued message's MAC covers: its time and text, and its origin when a tool's command queued it (so that mark cannot be stripped). */
function queuedMacInput(message: QueuedMessage): string {
  return JSON.stringify(message.from === undefined ? [message.at, message.text] : [message.at, message.text, message.from]);
}

/** True when keel queued `message` for session `id` for this user (`keel send`, a background hook, `keel sessions adopt`). Never throws. */
export function queuedMessageIsKeels(message: QueuedMessage, id: string, seals: SessionSeals): boolean {
  return seals.contentMacMatches(id, "queue", queuedMacInput(message), message.mac);
}
