import { ToolError } from "../errors.js";
import { REDACTED } from "../redact-secrets.js";
import { defineTool } from "../define-tool.js";
import type { Host } from "../host.js";
import type { ToolDefinition } from "../types.js";
import { pathToolTraits } from "./path-tool-traits.js";
import { confinePath, displayPath } from "./confine-path.js";
import { baselineOf } from "./file-baseline.js";
import { openFileInside, readOpened } from "./open-inside.js";
import { READ_FILE_MAX_BYTES } from "./read-file.js";
import { encodeStored, storedEncoding, utf16Text, type StoredEncoding } from "./utf16-text.js";
import { writeFileInside } from "./write-inside.js";

/** Files larger than this are not read for the `***` check (no credential file is that large). */
const SECRET_CHECK_MAX_BYTES = 4 * 1024 * 1024;

/**
 * `write_file`: creates or overwrites a text file (parent folders too) atomically (temp file and
 * rename, file mode kept; see `writeFileInside`) and records its new read-before-edit baseline. A file it overwrites
 * keeps its encoding (UTF-16 or UTF-8 with a byte order mark, the mark first); a new file is UTF-8.
 */
export function writeFileTool(): ToolDefinition {
  const inputSchema = {
    type: "object",
    properties: {
      path: { type: "string", description: "File path, relative to the workspace" },
      content: { type: "string", description: "The complete new content of the file" },
    },
    required: ["path", "content"],
    additionalProperties: false,
  } as const;
  return defineTool(inputSchema, {
    name: "write_file",
    description:
      "Create or overwrite a text file inside the workspace with `content` (parent folders are created). For a small change to an existing file prefer edit_file.",
    ...pathToolTraits("write"),
    nextText: (input) => input.content,
    async execute(input, ctx) {
      const abs = confinePath(ctx.root, input.path, "path", ctx.cwd);
      const rel = displayPath(ctx.cwd, abs);
      if (input.content.includes(REDACTED)) await refuseHiddenSecretLoss(ctx.host, ctx.root, abs, rel, input.content);
      // An existing file keeps its encoding: a UTF-16 file (PowerShell's `>`, a .reg file) stays UTF-16 with its byte order
      // mark, and a UTF-8 file with a mark keeps it, as edit_file and editors keep them; read_file shows both as text.
      const encoding = await existingEncoding(ctx.root, abs, rel);
      const bytes = encodeStored(input.content, encoding);
      let written;
      try {
        written = await writeFileInside(ctx.root, abs, bytes, ctx.signal, rel);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EEXIST" || code === "ENOTDIR")
          throw new ToolError(`Cannot create ${input.path}: a parent of it is a file, not a folder.`, "execution_failed");
        throw error;
      }
      await ctx.fileBaselines.set(abs, baselineOf(written.stat, bytes));
      const kept = encoding && !written.created ? `, ${ENCODING_NAMES[encoding]} as before` : "";
      return {
        content: `${written.created ? "Created" : "Overwrote"} ${rel} (${bytes.length} bytes${kept}).`,
        data: { path: rel, bytes: bytes.length, created: written.created, encoding: encoding ?? "utf-8" },
        metadata: { path: rel },
      };
    },
  });
}

/** How a result names an encoding kept. */
const ENCODING_NAMES = { "utf-16le": "UTF-16LE", "utf-16be": "UTF-16BE", "utf-8-bom": "UTF-8 with a byte order mark" } as const;

/** How many first bytes of an existing file tell its encoding (see storedEncoding). */
const ENCODING_PROBE_BYTES = 64 * 1024;

/**
 * The encoding `abs` announces with its byte order mark (see storedEncoding; UTF-16 only when the whole file decodes, up to
 * READ_FILE_MAX_BYTES), or undefined when it is not there, is not a regular file or cannot be read (the write reports its
 * own errors). Never throws.
 */
async function existingEncoding(root: string, abs: string, rel: string): Promise<StoredEncoding> {
  try {
    const handle = await openFileInside(root, abs, rel);
    try {
      const st = await handle.stat();
      if (!st.isFile() || st.size < 2) return undefined;
      const probe = await readOpened(handle, Math.min(st.size, ENCODING_PROBE_BYTES));
      const found = storedEncoding(probe, st.size);
      // A file read_file reads whole is UTF-16 text only when all of it decodes, as read_file shows it: one whose bytes go
      // bad past the probe was shown as binary, so the model's text is not written to it as UTF-16.
      if ((found === "utf-16le" || found === "utf-16be") && st.size > probe.length && st.size <= READ_FILE_MAX_BYTES)
        return utf16Text(await readOpened(handle, st.size))?.encoding;
      return found;
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/**
 * Throws ToolError(`precondition_failed`) when `abs` holds a secret that tool results show as `***` (see
 * `host.resultSecrets`) and `content` would drop it: the model rewriting a `.env` it read would write `***` in
 * place of your key. A file that does not exist, is not a regular file or is larger than 4 MiB is not checked.
 */
async function refuseHiddenSecretLoss(host: Host, root: string, abs: string, rel: string, content: string): Promise<void> {
  const redactor = host.resultSecrets.redactor();
  if (!redactor) return;
  let current: string;
  try {
    const handle = await openFileInside(root, abs, rel);
    try {
      const st = await handle.stat();
      if (!st.isFile() || st.size > SECRET_CHECK_MAX_BYTES) return;
      const bytes = await readOpened(handle, st.size);
      current = utf16Text(bytes)?.text ?? bytes.toString("utf8");
    } finally {
      await handle.close();
    }
  } catch {
    return; // nothing there to lose (the write reports its own errors)
  }
  const shown = redactor.text(current);
  if (shown === current || redactor.text(content) !== content) return;
  throw new ToolError(
    `Not written: ${rel} holds a secret that keel showed you as ${REDACTED}, and this content would replace it with ${REDACTED}. Change the file with edit_file instead, leaving the lines that show ${REDACTED} as they are.`,
    "precondition_failed",
  );
}
