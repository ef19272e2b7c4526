import { mkdirSync } from "node:fs";
import { StateError } from "./errors.js";
import { join, relative } from "node:path";
import { randomBytes } from "./lazy-crypto.js";
import { assertOwnPath, PRIVATE_DIR_MODE, writeNewOwnFileSync } from "./state/own-path.js";
import { storageMessage } from "./state/storage-problem.js";
import type { ArtifactRef } from "./types.js";

/** Writes full outputs and binary parts to files under an artifacts directory. */
export class ArtifactStore {
  private made = false;
  /**
   * `dir` is absolute; `root` is what paths in `ArtifactRef` are relative to (the workspace root);
   * `ensure` runs once before the first write (creates `.keel/` with its `.gitignore`).
   */
  constructor(
    readonly dir: string,
    private readonly root: string,
    private readonly ensure?: () => void,
  ) {}

  /**
   * Writes one artifact synchronously and returns its reference, always directly in `dir` as a new
   * file `<callId>-<kind>[-N].<ext>` (call id and kind reduced to `[A-Za-z0-9_-]`; `-N` when that
   * name is taken): an artifact is never overwritten. Never through a symlink planted in the
   * repository: a linked artifacts folder throws StateError, a link at the name counts as taken.
   */
  write(callId: string, kind: string, data: string | Buffer, ext: string, mimeType?: string): ArtifactRef {
    if (!this.made) {
      this.ensure?.();
      assertOwnPath(this.dir, true);
      mkdirSync(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      this.made = true;
    }
    const name = `${fileSafeCallId(callId)}-${kind.replace(/[^A-Za-z0-9_-]/g, "_")}`;
    const dot = `.${ext.replace(/[^A-Za-z0-9]/g, "")}`;
    // Never over another artifact: the same call id from another session (servers that send one
    // constant id, or none) or the re-run of an approved call gets `-2`, `-3`… (then a random suffix).
    let file = join(this.dir, name + dot);
    try {
      for (let n = 2; !writeNewOwnFileSync(file, data); n++) file = join(this.dir, `${name}-${n <= 100 ? n : randomBytes(6).toString("hex")}${dot}`);
    } catch (error) {
      // A full disk: no part of the artifact is left (see writeNewOwnFileSync); the message names where it would have gone.
      if (error instanceof StateError) throw error;
      throw new StateError(`Could not save ${relative(this.root, file)}: ${storageMessage(error)}`, file, { cause: error });
    }
    const bytes = typeof data === "string" ? Buffer.byteLength(data) : data.length;
    return { kind, path: relative(this.root, file), bytes, ...(mimeType ? { mimeType } : {}) };
  }
}

/**
 * The part of an artifact's file name that comes from its call id: `[A-Za-z0-9_-]` only (a call id
 * can come from the model's response, `../../x`), at most 100 characters. Agent sessions keep the
 * ids of their calls distinct by this form (see `uniqueCallIds`), so no two share an artifact.
 */
export function fileSafeCallId(callId: string): string {
  // A session recorded from a server that sent no id (or a number) may hold a call without a string id.
  return String(callId ?? "")
    .replace(/[^A-Za-z0-9_-]/g, "_")
    .slice(0, 100);
}

/** File extension for a MIME type (best effort; `bin` when unknown). */
export function extensionFor(mimeType: string): string {
  const known: Record<string, string> = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "image/svg+xml": "svg",
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/mpeg": "mp3",
    "audio/ogg": "ogg",
    "application/pdf": "pdf",
    "application/json": "json",
    "application/zip": "zip",
    "text/plain": "txt",
  };
  // An own key only: the type is the server's word (`toString` found a function, written into the file name).
  if (Object.hasOwn(known, mimeType)) return known[mimeType]!;
  return mimeType.startsWith("text/") ? "txt" : "bin";
}
