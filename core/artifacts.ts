import { mkdirSync } from "node:fs";
import { join, relative } from "node:path";
import { assertOwnPath, writeOwnFileSync } from "./state/own-path.js";
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
   * Writes one artifact synchronously and returns its reference, always directly in `dir`: the call
   * id and kind are reduced to `[A-Za-z0-9_-]`. Never through a symlink planted in
   * the repository: a linked artifacts folder throws StateError, a link at the file is replaced.
   */
  write(callId: string, kind: string, data: string | Buffer, ext: string, mimeType?: string): ArtifactRef {
    if (!this.made) {
      this.ensure?.();
      assertOwnPath(this.dir, true);
      mkdirSync(this.dir, { recursive: true });
      this.made = true;
    }
    const safeKind = kind.replace(/[^A-Za-z0-9_-]/g, "_");
    // A call id can come from the model's response (`../../x`): only its safe characters name a file here.
    const safeId = callId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 100);
    const file = join(this.dir, `${safeId}-${safeKind}.${ext.replace(/[^A-Za-z0-9]/g, "")}`);
    writeOwnFileSync(file, data);
    const bytes = typeof data === "string" ? Buffer.byteLength(data) : data.length;
    return { kind, path: relative(this.root, file), bytes, ...(mimeType ? { mimeType } : {}) };
  }
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
  return known[mimeType] ?? (mimeType.startsWith("text/") ? "txt" : "bin");
}
