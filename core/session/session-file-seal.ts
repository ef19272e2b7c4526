import { lstatSync } from "node:fs";
import type { QueuedMessage } from "./message-queue.js";
import type { SessionSeals } from "./session-seal.js";

/**
 * Which file the session log `file` is: inode and birth time ("none" when there is none; the device is
 * left out, as some file systems number it anew at each mount). keel only ever appends to a session's
 * log, so it stays the same file; one git wrote in its place (`git pull` overwrites ignored files
 * silently) is another. Never throws.
 */
export function logIdentity(file: string): string {
  try {
    const st = lstatSync(file, { bigint: true, throwIfNoEntry: false });
    return st?.isFile() ? `${st.ino}:${st.birthtimeNs}` : "none";
  } catch {
    return "none";
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
 * must carry keel's MAC of itself (`sealedSnapshotText`), and its log (`eventsFile`) must be the file
 * the checkpoint names (`log`, see `logIdentity`). A repository can commit files into a session's
 * folder, and `git pull` writes them over keel's own (`.keel/` is ignored, and git overwrites ignored
 * files): the session's seal proves only who started it, these prove its conversation is the one keel held.
 */
export function sessionFilesProblem(text: string, log: unknown, id: string, eventsFile: string, seals: SessionSeals): string | undefined {
  const mac = MAC_FIELD.exec(text);
  if (!mac || !seals.contentMacMatches(id, "state", `${text.slice(0, mac.index)}}`, mac[1]))
    return "its checkpoint state.json is not one keel wrote (it came with the workspace, or predates keel's checks of session files)";
  if (log !== logIdentity(eventsFile)) return "its log events.jsonl is not the file keel has been writing (it was replaced since keel's last checkpoint)";
  return undefined;
}

/** A queued message with keel's MAC of it for session `id` (see `queuedMessageIsKeels`). Throws StateError when the key cannot be made. */
export function sealQueuedMessage(message: QueuedMessage, id: string, seals: SessionSeals): QueuedMessage {
  return { text: message.text, at: message.at, mac: seals.contentMac(id, "queue", JSON.stringify([message.at, message.text])) };
}

/** True when keel queued `message` for session `id` for this user (`keel send`, a background hook, `keel sessions adopt`). Never throws. */
export function queuedMessageIsKeels(message: QueuedMessage, id: string, seals: SessionSeals): boolean {
  return seals.contentMacMatches(id, "queue", JSON.stringify([message.at, message.text]), message.mac);
}
