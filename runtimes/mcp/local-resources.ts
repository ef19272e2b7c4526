import { resolve } from "node:path";
import { confinePath, openFileInside, readOpened, ToolError } from "../../core/index.js";

/** Largest local resource file keel reads. */
export const MAX_LOCAL_RESOURCE_BYTES = 10 * 1024 * 1024;
import type { LocalResource } from "../../manifests/mcp/mcp-server-config.js";

/**
 * The text of a local manifest resource. A `path` (relative to its manifest) must resolve inside
 * the workspace, symlinks included, and `refuse` (see `readRefusal`: a read deny or ask rule, a
 * hidden credential store) must have nothing against it: a manifest's resource must not show the
 * model what `read_file` may not. Anything else is refused with ToolError(permission_denied).
 */
export async function readLocalResource(
  resource: LocalResource,
  workspaceRoot: string,
  refuse: (abs: string) => string | undefined,
): Promise<{ uri: string; mimeType?: string; text: string }> {
  if (resource.text !== undefined) return { uri: resource.uri, mimeType: resource.mimeType, text: resource.text };
  const abs = confinePath(workspaceRoot, resolve(resource.baseDir, resource.path!), "path");
  const refused = refuse(abs);
  if (refused)
    throw new ToolError(
      `Local resource "${resource.name}" (${resource.path}) is not read: ${refused} keeps it from the model, as it keeps it from read_file. Use another resource, or ask the user to change the rule.`,
      "permission_denied",
    );
  try {
    // One descriptor, checked inside the workspace; a FIFO, a device or a huge file is refused.
    const handle = await openFileInside(workspaceRoot, abs, resource.path!);
    try {
      const st = await handle.stat();
      if (!st.isFile()) throw new Error("it is not a regular file");
      if (st.size > MAX_LOCAL_RESOURCE_BYTES)
        throw new Error(`it is ${st.size} bytes, more than the ${MAX_LOCAL_RESOURCE_BYTES} bytes a local resource may have`);
      return { uri: resource.uri, mimeType: resource.mimeType, text: (await readOpened(handle, st.size)).toString("utf8") };
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw new ToolError(
      `Local resource "${resource.name}" (${resource.path}) cannot be read: ${(error as Error).message}. Fix its path in ${resource.file}.`,
      "execution_failed",
    );
  }
}
