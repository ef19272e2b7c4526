import { notFoundHint, shownPath } from "../shown-path.js";
import { ToolError } from "../errors.js";
import { defineTool } from "../define-tool.js";
import type { ToolDefinition } from "../types.js";
import { pathToolTraits } from "./path-tool-traits.js";
import { confinePath, displayPath } from "./confine-path.js";
import { baselineOf } from "./file-baseline.js";
import { openFileInside, readOpened } from "./open-inside.js";
import { readLineWindow } from "./read-line-window.js";
import { utf16Text } from "./utf16-text.js";

/** Largest file read_file reads whole (bytes); larger files are read as a line window (offset/limit), streamed. */
export const READ_FILE_MAX_BYTES = 10 * 1024 * 1024;

/**
 * `read_file`: reads a text file and records the read-before-edit baseline. With offset/limit it
 * streams the file and returns only that line window, whatever the file's size; a whole-file read
 * over READ_FILE_MAX_BYTES is refused with a hint to pass offset/limit. The file is opened once,
 * checked inside the boundary through its descriptor (see `openFileInside`), and read from that descriptor.
 */
export function readFileTool(): ToolDefinition {
  const inputSchema = {
    type: "object",
    properties: {
      path: { type: "string", description: "File path, relative to the workspace" },
      offset: { type: "integer", minimum: 1, description: "First line to return (1-based)" },
      limit: { type: "integer", minimum: 1, description: "Maximum number of lines to return" },
    },
    required: ["path"],
    additionalProperties: false,
  } as const;
  return defineTool(inputSchema, {
    name: "read_file",
    description:
      "Read a text file inside the workspace. Optional `offset` (first line, 1-based) and `limit` (number of lines) read a window of a file of any size (files over 10 MiB can only be read this way).",
    ...pathToolTraits("read"),
    async execute(input, ctx) {
      const abs = confinePath(ctx.root, input.path, "path", ctx.cwd);
      let handle;
      try {
        handle = await openFileInside(ctx.root, abs, input.path);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT")
          throw new ToolError(
            `File not found: ${shownPath(input.path)}. Use list_dir or glob to find the right path.${notFoundHint(input.path)}`,
            "execution_failed",
          );
        if (code === "EISDIR") throw new ToolError(`${input.path} is a directory; use list_dir to list it.`, "execution_failed");
        throw error;
      }
      try {
        const stat = await handle.stat();
        if (stat.isDirectory()) throw new ToolError(`${input.path} is a directory; use list_dir to list it.`, "execution_failed");
        if (!stat.isFile())
          throw new ToolError(`${input.path} is not a regular file (a FIFO, socket or device); read_file reads files only.`, "execution_failed");
        const rel = displayPath(ctx.cwd, abs);
        const windowed = input.offset !== undefined || input.limit !== undefined;
        if (windowed) {
          const win = await readLineWindow(handle, {
            offset: input.offset ?? 1,
            limit: input.limit,
            toEnd: stat.size <= READ_FILE_MAX_BYTES,
            maxBytes: READ_FILE_MAX_BYTES,
            signal: ctx.signal,
          });
          if (!win.binary) {
            if (win.sha1 !== undefined) await ctx.fileBaselines.set(abs, { size: stat.size, mtimeMs: stat.mtimeMs, hash: win.sha1 });
            const fromLine = input.offset ?? 1;
            const toLine = fromLine + win.lines.length - 1;
            const note = win.cut
              ? `\n[window stopped inside line ${toLine}: read_file returns at most 10 MiB (${READ_FILE_MAX_BYTES} bytes) of text at once, so that line is cut there; ${
                  fromLine === toLine
                    ? "use grep or bash (`cut -c`) for the rest of a line that long"
                    : `pass a smaller limit, or offset ${toLine} to start with that line`
                }]`
              : "";
            if (win.lines.length === 0)
              return {
                content: `[offset ${fromLine} is past the end of ${rel}, which has ${win.totalLines ?? "fewer"} line(s); pass an offset from 1 to ${win.totalLines ?? fromLine - 1}]`,
                data: { path: rel, bytes: stat.size, ...(win.totalLines === undefined ? {} : { totalLines: win.totalLines }), fromLine, toLine, pastEnd: true },
                metadata: { path: rel },
              };
            return {
              content: win.lines.join("\n") + note,
              data: { path: rel, bytes: stat.size, ...(win.totalLines === undefined ? {} : { totalLines: win.totalLines }), fromLine, toLine },
              metadata: { path: rel },
            };
          }
          if (stat.size > READ_FILE_MAX_BYTES)
            throw new ToolError(`${input.path} is binary (it contains NUL bytes); read_file reads lines of text files only.`, "execution_failed");
        } else if (stat.size > READ_FILE_MAX_BYTES) {
          // A line window of a binary file is refused too: say so now, rather than suggest one.
          const head = Buffer.alloc(8192);
          const { bytesRead } = await handle.read(head, 0, head.length, 0);
          if (head.subarray(0, bytesRead).includes(0))
            throw new ToolError(
              `${input.path} is a binary file (it contains NUL bytes) of ${stat.size} bytes; read_file reads text files only. Use bash to inspect it (\`file\`, \`xxd ${shownPath(input.path)} | head\`).`,
              "execution_failed",
            );
          throw new ToolError(
            `${input.path} is ${stat.size} bytes, over the 10 MiB (${READ_FILE_MAX_BYTES}-byte) limit for a whole-file read. Pass offset and limit (e.g. offset 1, limit 2000) to read a window of lines, or use grep to find the lines you need.`,
            "execution_failed",
          );
        }
        const buf = await readOpened(handle, stat.size);
        await ctx.fileBaselines.set(abs, baselineOf(stat, buf));
        const utf16 = utf16Text(buf);
        if (utf16) {
          // A UTF-16 file (with its byte order mark) is text: shown decoded, its window cut from the decoded lines.
          const all = utf16.text.split("\n");
          const fromLine = input.offset ?? 1;
          const lines = windowed ? all.slice(fromLine - 1, input.limit === undefined ? undefined : fromLine - 1 + input.limit) : all;
          return {
            content: lines.join("\n"),
            data: {
              path: rel,
              bytes: stat.size,
              encoding: utf16.encoding,
              ...(windowed ? { totalLines: all.length, fromLine, toLine: fromLine + lines.length - 1 } : {}),
            },
            metadata: { path: rel },
          };
        }
        if (buf.includes(0)) {
          return { content: "", binary: [{ data: buf, mimeType: "application/octet-stream", kind: "file" }], metadata: { path: rel, bytes: stat.size } };
        }
        return { content: buf.toString("utf8"), data: { path: rel, bytes: stat.size }, metadata: { path: rel } };
      } finally {
        await handle.close();
      }
    },
  });
}
