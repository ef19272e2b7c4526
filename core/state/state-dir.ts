import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const GITIGNORE = "# Written by keel: runtime state, sessions and artifacts stay out of git.\n*\n";

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
