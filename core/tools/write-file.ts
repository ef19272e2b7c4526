import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { ToolError } from "../errors.js";
import type { ToolDefinition } from "../types.js";
import { pathToolTraits } from "./path-tool-traits.js";
import { confinePath, displayPath } from "./confine-path.js";
import { baselineOf } from "./file-baseline.js";

interface WriteFileInput {
  path: string;
  content: string;
}

/** `write_file`: creates or overwrites a text file (parent folders too) and records its new read-before-edit baseline. */
export function writeFileTool(): ToolDefinition<WriteFileInput> {
  return {
    name: "write_file",
    description:
      "Create or overwrite a text file inside the workspace with `content` (parent folders are created). For a small change to an existing file prefer edit_file.",
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "File path, relative to the workspace" },
        content: { type: "string", description: "The complete new content of the file" },
      },
      required: ["path", "content"],
      additionalProperties: false,
    },
    ...pathToolTraits("write"),
    async execute(input, ctx) {
      const abs = confinePath(ctx.root, input.path, "path", ctx.cwd);
      const rel = displayPath(ctx.cwd, abs);
      const before = await stat(abs).catch(() => undefined);
      if (before?.isDirectory()) throw new ToolError(`${input.path} is a directory; give a file path.`, "execution_failed");
      const bytes = Buffer.from(input.content, "utf8");
      try {
        await mkdir(dirname(abs), { recursive: true });
        await writeFile(abs, bytes, { signal: ctx.signal });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EEXIST" || code === "ENOTDIR")
          throw new ToolError(`Cannot create ${input.path}: a parent of it is a file, not a folder.`, "execution_failed");
        throw error;
      }
      const after = await stat(abs);
      await ctx.fileBaselines.set(abs, baselineOf(after, bytes));
      const created = before === undefined;
      return {
        content: `${created ? "Created" : "Overwrote"} ${rel} (${bytes.length} bytes).`,
        data: { path: rel, bytes: bytes.length, created },
        metadata: { path: rel },
      };
    },
  };
}
