import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { ToolError } from "../../core/errors.js";
import { confinePath } from "../../core/tools/confine-path.js";
import type { LocalResource } from "../../manifests/mcp/mcp-server-config.js";

/**
 * The text of a local manifest resource. A `path` (relative to its manifest) must resolve inside
 * the workspace, symlinks included; anything else is refused with ToolError(permission_denied).
 */
export async function readLocalResource(resource: LocalResource, workspaceRoot: string): Promise<{ uri: string; mimeType?: string; text: string }> {
  if (resource.text !== undefined) return { uri: resource.uri, mimeType: resource.mimeType, text: resource.text };
  const abs = confinePath(workspaceRoot, resolve(resource.baseDir, resource.path!), "path");
  try {
    return { uri: resource.uri, mimeType: resource.mimeType, text: await readFile(abs, "utf8") };
  } catch (error) {
    throw new ToolError(`Local resource "${resource.name}" (${resource.path}) cannot be read: ${(error as Error).message}. Fix its path in ${resource.file}.`, "execution_failed");
  }
}
