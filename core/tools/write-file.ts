import { ToolError } from "../errors.js";
import { REDACTED } from "../redact-secrets.js";
import { defineTool } from "../define-tool.js";
import type { Host } from "../host.js";
import type { ToolDefinition } from "../types.js";
import { pathToolTraits } from "./path-tool-traits.js";
import { confinePath, displayPath } from "./confine-path.js";
import { baselineOf } from "./file-baseline.js";
import { openFileInside, readOpened } from "./open-inside.js";
import { writeFileInside } from "./write-inside.js";

/** Files larger than this are not read for the `***` check (no credential file is that large). */
const SECRET_CHECK_MAX_BYTES = 4 * 1024 * 1024;

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
      if (input.content.includes(REDACTED)) await refuseHiddenSecretLoss(ctx.host, ctx.root, abs, rel, input.content);
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
      current = (await readOpened(handle, st.size)).toString("utf8");
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
