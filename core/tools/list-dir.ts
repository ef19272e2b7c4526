import { lstat, readdir, stat } from "node:fs/promises";
import { ToolError } from "../errors.js";
import { defineTool } from "../define-tool.js";
import type { ToolDefinition } from "../types.js";
import { pathToolTraits } from "./path-tool-traits.js";
import { confinePath, displayPath } from "./confine-path.js";
import { openDirInside, type PinnedDir } from "./open-inside.js";

/** Most entries list_dir returns; the rest are counted in a note. */
export const LIST_DIR_MAX_ENTRIES = 1000;

/** One entry of a directory listing. */
export interface DirEntry {
  name: string;
  type: "file" | "dir" | "symlink" | "other";
  /** Bytes for files (and symlink targets' own size is not followed). */
  size: number;
}

/** `list_dir`: the entries of one directory with type and size, sorted by name, capped; listed through a descriptor checked inside the boundary. */
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
        if (code === "ENOENT") throw new ToolError(`Directory not found: ${rel}. List its parent to see what exists.`, "execution_failed");
        if (code === "ENOTDIR") throw new ToolError(`${rel} is a file, not a directory; use read_file to read it.`, "execution_failed");
        throw error;
      }
      let dirents;
      let entries: DirEntry[];
      const limit = Math.min(input.limit ?? LIST_DIR_MAX_ENTRIES, LIST_DIR_MAX_ENTRIES);
      try {
        dirents = await readdir(dir.child(""), { withFileTypes: true });
        dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        entries = await Promise.all(
          dirents.slice(0, limit).map(async (d): Promise<DirEntry> => {
            const type = d.isSymbolicLink() ? "symlink" : d.isDirectory() ? "dir" : d.isFile() ? "file" : "other";
            const st = await (type === "symlink" ? lstat : stat)(dir.child(d.name)).catch(() => undefined);
            return { name: d.name, type, size: type === "dir" ? 0 : (st?.size ?? 0) };
          }),
        );
      } finally {
        await dir.close();
      }
      const lines = entries.map((e) => (e.type === "dir" ? `${e.name}/` : e.type === "symlink" ? `${e.name}@` : `${e.name}  (${e.size} bytes)`));
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
