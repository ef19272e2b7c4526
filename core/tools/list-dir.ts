import { isUtf8 } from "node:buffer";
import { lstat, readdir, stat } from "node:fs/promises";
import { ToolError } from "../errors.js";
import { defineTool } from "../define-tool.js";
import type { ToolDefinition } from "../types.js";
import { pathToolTraits } from "./path-tool-traits.js";
import { confinePath, displayPath } from "./confine-path.js";
import { openDirInside, type PinnedDir } from "./open-inside.js";
import { LOSSY_NAME_HINT, notFoundHint, shownPath } from "../shown-path.js";

/** Most entries list_dir returns; the rest are counted in a note. */
export const LIST_DIR_MAX_ENTRIES = 1000;

/** One entry of a directory listing. */
export interface DirEntry {
  name: string;
  type: "file" | "dir" | "symlink" | "other";
  /** Bytes for files (and symlink targets' own size is not followed). */
  size: number;
  /** The name on disk is not valid UTF-8: `name` shows its bad bytes as U+FFFD, and file tools cannot open it by that name. */
  invalidUtf8?: true;
}

/**
 * `list_dir`: the entries of one directory with type and size, sorted by name, capped; listed through
 * a descriptor checked inside the boundary. A name with a newline or another unclear character is
 * shown as a JSON string (`shownPath`); one that is not valid UTF-8 is flagged (`invalidUtf8`).
 */
export function listDirTool(): ToolDefinition {
  const inputSchema = {
    type: "object",
    properties: {
      path: { type: "string", description: "Directory, relative to the workspace (default: the workspace root)" },
      limit: { type: "integer", minimum: 1, maximum: LIST_DIR_MAX_ENTRIES, description: `Most entries to return (default ${LIST_DIR_MAX_ENTRIES})` },
    },
    additionalProperties: false,
  } as const;
  return defineTool(inputSchema, {
    name: "list_dir",
    description:
      "List one directory inside the workspace: each entry's name, type (file, dir, symlink) and size, sorted by name. Use glob to search recursively.",
    ...pathToolTraits("read"),
    async execute(input, ctx) {
      const abs = confinePath(ctx.root, input.path ?? ".", "path", ctx.cwd);
      const rel = displayPath(ctx.cwd, abs);
      let dir: PinnedDir;
      try {
        dir = await openDirInside(ctx.root, abs, rel);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT")
          throw new ToolError(`Directory not found: ${shownPath(rel)}. List its parent to see what exists.${notFoundHint(rel)}`, "execution_failed");
        if (code === "ENOTDIR") throw new ToolError(`${rel} is a file, not a directory; use read_file to read it.`, "execution_failed");
        throw error;
      }
      let dirents;
      let entries: DirEntry[];
      const limit = Math.min(input.limit ?? LIST_DIR_MAX_ENTRIES, LIST_DIR_MAX_ENTRIES);
      try {
        // Names as bytes: one that is not valid UTF-8 is still found (and sized) by its own bytes.
        const at = Buffer.from(dir.at + "/");
        dirents = (await readdir(dir.child(""), { withFileTypes: true, encoding: "buffer" })).map((d) => ({ d, name: d.name.toString("utf8") }));
        dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        entries = await Promise.all(
          dirents.slice(0, limit).map(async ({ d, name }): Promise<DirEntry> => {
            const type = d.isSymbolicLink() ? "symlink" : d.isDirectory() ? "dir" : d.isFile() ? "file" : "other";
            const st = await (type === "symlink" ? lstat : stat)(Buffer.concat([at, d.name])).catch(() => undefined);
            return { name, type, size: type === "dir" ? 0 : (st?.size ?? 0), ...(isUtf8(d.name) ? {} : { invalidUtf8: true as const }) };
          }),
        );
      } finally {
        await dir.close();
      }
      const lines = entries.map((e) => {
        const name = shownPath(e.name);
        return e.type === "dir" ? `${name}/` : e.type === "symlink" ? `${name}@` : `${name}  (${e.size} bytes)`;
      });
      const lossy = entries.filter((e) => e.invalidUtf8).length;
      if (lossy > 0) lines.push(`[${lossy} name(s) above are not valid UTF-8: ${LOSSY_NAME_HINT}]`);
      const omitted = dirents.length - entries.length;
      if (omitted > 0) lines.push(`[${omitted} more entries not shown; ${dirents.length} in total. Use glob with a pattern to narrow down.]`);
      if (dirents.length === 0) lines.push(`(${rel} is empty)`);
      return {
        content: lines.join("\n"),
        data: { path: rel, entries, total: dirents.length, truncated: omitted > 0 },
        metadata: { path: rel },
      };
    },
  });
}
