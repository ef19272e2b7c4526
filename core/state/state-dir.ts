import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assertOwnPath } from "./own-path.js";

/**
 * Runtime state, sessions, artifacts and worktrees stay out of git; the files users write
 * themselves under `.keel/` (workflows, declared teams) stay committable. The .gitignore itself is
 * ignored too, so a repository where keel only ran shows nothing new in `git status`.
 */
export const KEEL_GITIGNORE = [
  "# Written by keel: runtime state, sessions, artifacts and worktrees stay out of git.",
  "*",
  "# ...but what you author here is shared with your repository:",
  "!workflows/",
  "!workflows/*.json",
  "!teams.json",
  "",
].join("\n");

/**
 * Creates `<stateDir>` (and its `.gitignore`) plus `sub` if missing; returns the joined path. Sync
 * and idempotent. Throws StateError when `.keel` or a folder of `sub` is a symlink (see
 * `assertOwnPath`): keel never creates or writes its state through a link planted in the repository.
 */
export function ensureStateDir(stateDir: string, ...sub: string[]): string {
  const dir = join(stateDir, ...sub);
  assertOwnPath(dir, true);
  const gitignore = join(stateDir, ".gitignore");
  if (!existsSync(gitignore)) {
    mkdirSync(stateDir, { recursive: true });
    try {
      // O_CREAT|O_EXCL: never follows a link planted at .gitignore (a dangling one counts as existing).
      writeFileSync(gitignore, KEEL_GITIGNORE, { flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  if (sub.length > 0) mkdirSync(dir, { recursive: true });
  return dir;
}
