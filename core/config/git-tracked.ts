import { isAbsolute, join, relative, sep } from "node:path";
import { withoutRepoLocation } from "../git-repo-env.js";
import { systemEnv, systemProgram } from "../system-program.js";

/**
 * Which of `files` (absolute paths inside `root`) git tracks in the repository holding `root`: one
 * `git ls-files`, run outside the sandbox with a git found outside the workspace (see systemProgram),
 * no file-system monitor and no hooks. For a message only, never a security decision: empty when
 * git is missing, `root` is no repository, or git fails. Loaded and run only when a message needs
 * it (execa is imported here, on first use). Never throws.
 */
export async function trackedByGit(root: string, files: readonly string[], env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<Set<string>> {
  const rels = files.map((f) => relative(root, f)).filter((r) => r !== "" && r !== ".." && !r.startsWith(`..${sep}`) && !isAbsolute(r));
  const git = systemProgram("git", env, [root]);
  if (!git || !rels.length) return new Set();
  try {
    const { execa } = await import("execa");
    const r = await execa(git, ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "ls-files", "-z", "--", ...rels], {
      cwd: root,
      env: withoutRepoLocation(systemEnv(env, [root])),
      extendEnv: false,
      reject: false,
      stdin: "ignore",
      timeout: 10_000,
      cancelSignal: signal,
    });
    if (r.exitCode !== 0) return new Set();
    return new Set(
      String(r.stdout)
        .split("\0")
        .filter(Boolean)
        .map((rel) => join(root, rel)),
    );
  } catch {
    return new Set();
  }
}
