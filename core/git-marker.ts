import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * What `<dir>/.git` is, as git sees it when it looks for a repository: a `"file"` (a gitdir
 * pointer), a `"dir"`, or undefined when there is none. An empty `.git` folder (the read-only
 * placeholder the sandbox keeps where a workspace has no `.git`) is no repository, so undefined:
 * git looks past it to the enclosing one. Never throws.
 */
export function gitMarkerAt(dir: string): "file" | "dir" | undefined {
  const dotGit = join(dir, ".git");
  try {
    const stat = lstatSync(dotGit);
    if (stat.isFile()) return "file";
    if (!stat.isDirectory() || readdirSync(dotGit).length === 0) return undefined;
    return "dir";
  } catch {
    return undefined;
  }
}
