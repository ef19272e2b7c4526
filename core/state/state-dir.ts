import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Runtime state, sessions, artifacts and worktrees stay out of git; the files users write
 * themselves under `.keel/` (workflows, declared teams) stay committable. The .gitignore itself is
 * ignored too, so a repository where keel only ran shows nothing new in `git status`.
 */
const GITIGNORE = [
  "# Written by keel: runtime state, sessions, artifacts and worktrees stay out of git.",
  "*",
  "# ...but what you author here is shared with your repository:",
  "!workflows/",
  "!workflows/*.json",
  "!teams.json",
  "",
].join("\n");

/** Creates `<stateDir>` (and its `.gitignore`) plus `sub` if missing; returns the joined path. Sync and idempotent. */
export function ensureStateDir(stateDir: string, ...sub: string[]): string {
  if (!existsSync(join(stateDir, ".gitignore"))) {
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(join(stateDir, ".gitignore"), GITIGNORE, { flag: "w" });
  }
  const dir = join(stateDir, ...sub);
  if (sub.length > 0) mkdirSync(dir, { recursive: true });
  return dir;
}
