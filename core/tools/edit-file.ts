import { isUtf8 } from "node:buffer";
import { notFoundHint, shownPath } from "../shown-path.js";
import { stat } from "node:fs/promises";
import { ToolError } from "../errors.js";
import type { Host } from "../host.js";
import { REDACTED } from "../redact-secrets.js";
import { defineTool } from "../define-tool.js";
import type { ToolDefinition } from "../types.js";
import { pathToolTraits } from "./path-tool-traits.js";
import { confinePath, displayPath } from "./confine-path.js";
import { baselineOf, sameBaseline } from "./file-baseline.js";
import { nearMatchHint, nearestMatch } from "./nearest-match.js";
import { openFileInside, readOpened } from "./open-inside.js";
import { encodeUtf16, utf16Text } from "./utf16-text.js";
import { writeFileInside } from "./write-inside.js";

/**
 * `edit_file`: replaces `old_string` with `new_string` in a file that was read first and has not
 * changed since (size, mtime, sha1); `old_string` must be unique unless `replace_all`. The file is
 * read through a checked descriptor and replaced atomically (see `writeFileInside`). A CRLF file keeps
 * its line endings (`lineEndingsOf`); a file that is not valid UTF-8 is edited as bytes, the rest unchanged.
 * Refusals are ToolErrors (`precondition_failed` for a missing file or a missing or stale read).
 */
export function editFileTool(): ToolDefinition {
  const inputSchema = {
    type: "object",
    properties: {
      path: { type: "string", description: "File path, relative to the workspace" },
      old_string: { type: "string", minLength: 1, description: "Exact text to replace" },
      new_string: { type: "string", description: "Replacement text" },
      replace_all: { type: "boolean", description: "Replace every occurrence instead of requiring exactly one" },
    },
    required: ["path", "old_string", "new_string"],
    additionalProperties: false,
  } as const;
  return defineTool(inputSchema, {
    name: "edit_file",
    description:
      "Replace an exact piece of text in a file. Read the file with read_file first. `old_string` must occur exactly once (include surrounding lines to make it unique) unless `replace_all` is true.",
    ...pathToolTraits("write"),
    // The text the edit leaves when it succeeds (it fails, changing nothing, unless `old_string` occurs).
    nextText: (input, current) => {
      if (current === undefined) return undefined;
      const edit = lineEndingsOf(current, input.old_string, input.new_string);
      return applyEdit(current, edit.old, edit.new);
    },
    async execute(input, ctx) {
      const abs = confinePath(ctx.root, input.path, "path", ctx.cwd);
      const rel = displayPath(ctx.cwd, abs);
      const baseline = await ctx.fileBaselines.get(abs);
      if (!baseline && !(await stat(abs).catch(() => undefined)))
        throw new ToolError(
          `File not found: ${shownPath(rel)}. edit_file only changes existing files; use write_file to create it.${notFoundHint(rel)}`,
          "precondition_failed",
          null,
          {
            path: rel,
            reason: "missing",
          },
        );
      if (!baseline)
        throw new ToolError(`${rel} has not been read yet. Call read_file on it first, then retry the edit.`, "precondition_failed", null, {
          path: rel,
          reason: "not_read",
        });
      let handle;
      try {
        handle = await openFileInside(ctx.root, abs, rel);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT")
          throw new ToolError(`${rel} no longer exists. Use write_file to create it.`, "precondition_failed", null, { path: rel, reason: "missing" });
        throw error;
      }
      let bytes: Buffer;
      let current;
      try {
        current = await handle.stat();
        if (!current.isFile()) throw new ToolError(`${rel} is not a regular file; edit_file changes text files only.`, "execution_failed");
        bytes = await readOpened(handle, current.size);
      } finally {
        await handle.close();
      }
      if (!sameBaseline(baseline, baselineOf(current, bytes)))
        throw new ToolError(
          `${rel} changed since it was last read. Call read_file on it again, then redo the edit against the current content.`,
          "precondition_failed",
          null,
          { path: rel, reason: "stale" },
        );
      if (input.old_string === input.new_string) throw new ToolError("`old_string` and `new_string` are identical; nothing would change.", "execution_failed");
      // A UTF-16 file (with its byte order mark) is edited as its text and written back in its encoding, mark first.
      const utf16 = utf16Text(bytes);
      const text = utf16 ? utf16.text : bytes.toString("utf8");
      const edit = lineEndingsOf(text, input.old_string, input.new_string);
      // A file that is not valid UTF-8 (Latin-1, a stray byte) is edited as bytes: its other bytes stay as they are,
      // where decoding and re-encoding the text would turn each of them into U+FFFD.
      const raw = utf16 || isUtf8(bytes) ? undefined : { old: Buffer.from(edit.old, "utf8"), new: Buffer.from(edit.new, "utf8") };
      const count = raw ? countBytes(bytes, raw.old) : countOccurrences(text, edit.old);
      if (count === 0)
        throw new ToolError(
          raw && input.old_string.includes("\ufffd")
            ? `\`old_string\` was not found in ${rel}: the file is not valid UTF-8, and read_file showed its undecodable bytes as \ufffd, which is not what the file holds. Leave the \ufffd characters out of \`old_string\` (edit the text around them), or change those bytes with bash.`
            : hidesSecret(ctx.host, text, input.old_string)
              ? `\`old_string\` was not found in ${rel}: it holds ${REDACTED}, which keel showed you in place of a secret the file holds. Leave the text that shows ${REDACTED} out of \`old_string\` (edit the lines around it).`
              : `\`old_string\` was not found in ${rel}. Copy the exact text (including whitespace) from read_file's output.${nearMatchHint(nearestMatch(text, input.old_string))}`,
          "execution_failed",
          null,
          { path: rel, occurrences: 0 },
        );
      if (count > 1 && !input.replace_all)
        throw new ToolError(
          `\`old_string\` occurs ${count} times in ${rel}; it must occur exactly once. Add surrounding lines to make it unique, or set replace_all: true to replace all ${count}.`,
          "execution_failed",
          null,
          { path: rel, occurrences: count },
        );
      const next = raw
        ? replaceBytes(bytes, raw.old, raw.new)
        : utf16
          ? encodeUtf16(applyEdit(text, edit.old, edit.new), utf16.encoding)
          : Buffer.from(applyEdit(text, edit.old, edit.new), "utf8");
      const written = await writeFileInside(ctx.root, abs, next, ctx.signal, rel);
      await ctx.fileBaselines.set(abs, baselineOf(written.stat, next));
      return {
        content: `Edited ${rel}: ${count} replacement${count === 1 ? "" : "s"}.`,
        data: { path: rel, replacements: count, bytes: next.length },
        metadata: { path: rel },
      };
    },
  });
}

/** True when `oldString` holds `***` and `text` holds a secret tool results show as `***` (see `host.resultSecrets`). */
function hidesSecret(host: Host, text: string, oldString: string): boolean {
  if (!oldString.includes(REDACTED)) return false;
  const redactor = host.resultSecrets.redactor();
  return redactor !== undefined && redactor.text(text) !== text;
}

/**
 * The edit to make in `text`: as given, or, when `text` has CRLF line endings and `oldString` (written
 * with plain newlines, as models write) is not found as given but is with CRLF, both strings with CRLF,
 * so the file keeps its line endings.
 */
function lineEndingsOf(text: string, oldString: string, newString: string): { old: string; new: string } {
  if (oldString.includes("\r") || !oldString.includes("\n") || !text.includes("\r\n") || text.includes(oldString)) return { old: oldString, new: newString };
  const crlf = oldString.replace(/\n/g, "\r\n");
  return text.includes(crlf) ? { old: crlf, new: newString.replace(/\r?\n/g, "\r\n") } : { old: oldString, new: newString };
}

/** `text` with every occurrence of `oldString` replaced (a unique one, unless `replace_all`: the caller checks the count). */
function applyEdit(text: string, oldString: string, newString: string): string {
  return text.split(oldString).join(newString);
}

/** Non-overlapping occurrences of `needle` in `bytes`. */
function countBytes(bytes: Buffer, needle: Buffer): number {
  let count = 0;
  for (let i = bytes.indexOf(needle); i !== -1; i = bytes.indexOf(needle, i + needle.length)) count++;
  return count;
}

/** `bytes` with every occurrence of `needle` replaced by `replacement`, every other byte as it was. */
function replaceBytes(bytes: Buffer, needle: Buffer, replacement: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = bytes.indexOf(needle); i !== -1; i = bytes.indexOf(needle, from)) {
    parts.push(bytes.subarray(from, i), replacement);
    from = i + needle.length;
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

/** Non-overlapping occurrences of `needle` in `text`. */
function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) count++;
  return count;
}
