import { ToolError } from "../errors.js";
import { defineTool } from "../define-tool.js";
import type { ToolDefinition } from "../types.js";
import { pathToolTraits } from "./path-tool-traits.js";
import { confinePath, displayPath } from "./confine-path.js";
import { baselineOf } from "./file-baseline.js";
import { writeFileInside } from "./write-inside.js";

/**
 * `write_file`: creates or overwrites a text file (parent folders too) atomically (temp file and
 * rename, file mode kept; see `writeFileInside`) and records its new read-before-edit baseline.
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
      const bytes = Buffer.from(input.content, "utf8");
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
      return {
        content: `${written.created ? "Created" : "Overwrote"} ${rel} (${bytes.length} bytes).`,
        data: { path: rel, bytes: bytes.length, created: written.created },
        metadata: { path: rel },
      };
    },
  });
}
