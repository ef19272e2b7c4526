import { open, type FileHandle } from "node:fs/promises";
import { ToolError } from "../errors.js";
import type { ToolDefinition } from "../types.js";
import { pathToolTraits } from "./path-tool-traits.js";
import { confinePath, displayPath } from "./confine-path.js";
import { baselineOf } from "./file-baseline.js";

/** Largest file read_file will open (bytes); larger files need offset/limit on lines after a grep. */
export const READ_FILE_MAX_BYTES = 10 * 1024 * 1024;

interface ReadFileInput {
  path: string;
  offset?: number;
  limit?: number;
}

/** `read_file`: reads a text file (optionally a line window) and records the read-before-edit baseline. */
export function readFileTool(): ToolDefinition<ReadFileInput> {
  return {
    name: "read_file",
    description:
      "Read a text file inside the workspace. Optional `offset` (first line, 1-based) and `limit` (number of lines) read a window of a large file.",
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "File path, relative to the workspace" },
        offset: { type: "integer", minimum: 1, description: "First line to return (1-based)" },
        limit: { type: "integer", minimum: 1, description: "Maximum number of lines to return" },
      },
      required: ["path"],
      additionalProperties: false,
    },
    ...pathToolTraits("read"),
    async execute(input, ctx) {
      const abs = confinePath(ctx.root, input.path, "path", ctx.cwd);
      let handle;
      try {
        handle = await open(abs, "r");
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT") throw new ToolError(`File not found: ${input.path}. Use list_dir or glob to find the right path.`, "execution_failed");
        if (code === "EISDIR") throw new ToolError(`${input.path} is a directory; use list_dir to list it.`, "execution_failed");
        throw error;
      }
      try {
        const stat = await handle.stat();
        if (stat.isDirectory()) throw new ToolError(`${input.path} is a directory; use list_dir to list it.`, "execution_failed");
        if (stat.size > READ_FILE_MAX_BYTES)
          throw new ToolError(`${input.path} is ${stat.size} bytes, over the ${READ_FILE_MAX_BYTES}-byte limit. Use grep to find the lines you need.`, "execution_failed");
        const buf = await readAll(handle, stat.size);
        await ctx.fileBaselines.set(abs, baselineOf(stat, buf));
        if (buf.includes(0)) {
          return { content: "", binary: [{ data: buf, mimeType: "application/octet-stream", kind: "file" }], metadata: { path: displayPath(ctx.cwd, abs), bytes: stat.size } };
        }
        const rel = displayPath(ctx.cwd, abs);
        const text = buf.toString("utf8");
        if (input.offset === undefined && input.limit === undefined)
          return { content: text, data: { path: rel, bytes: stat.size }, metadata: { path: rel } };
        const lines = text.split("\n");
        const start = (input.offset ?? 1) - 1;
        const end = input.limit === undefined ? lines.length : start + input.limit;
        const window = lines.slice(start, end);
        return {
          content: window.join("\n"),
          data: { path: rel, bytes: stat.size, totalLines: lines.length, fromLine: start + 1, toLine: start + window.length },
          metadata: { path: rel },
        };
      } finally {
        await handle.close();
      }
    },
  };
}

/**
 * Reads a file whose size `fstat` already gave, without `readFile`'s second fstat (one thread-pool
 * round trip less on the hot path). Files that report size 0 (procfs-like) fall back to `readFile`.
 */
async function readAll(handle: FileHandle, size: number): Promise<Buffer> {
  if (size === 0) return handle.readFile();
  const buf = Buffer.allocUnsafe(size);
  let off = 0;
  while (off < size) {
    const { bytesRead } = await handle.read(buf, off, size - off, off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  return off < size ? buf.subarray(0, off) : buf;
}
