import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { inside, type Host } from "../../core/index.js";
import type { DeclaredHook } from "./collect-hooks.js";

/** Where one hook of a dispatch runs (`dir`, `CLAUDE_PROJECT_DIR`) and the roots its pins are checked against (see `hookPlace`). */
export interface HookPlace {
  dir: string;
  pins: string[];
  projectDir: string;
}

/**
 * Where hook `h` of a dispatch from `cwd` runs, and the root its pins are checked against. A workspace hook runs in its
 * own folder (where its pins resolved its relative paths), not wherever the session is: from any
 * folder of the workspace, the script `keel trust` approved is the one that runs. In a managed
 * worktree it runs in the worktree's copy of that folder, so what it formats, lints or tests is the
 * worktree's (the experiment stays apart from the main checkout), and its scripts are checked there
 * against the same pins (a copy the session rewrote does not run), and so are the main checkout's, which a line naming its
 * script through `$CLAUDE_PROJECT_DIR` or an absolute path runs (rewritten before the session entered the worktree). A worktree without that folder (not committed,
 * or removed by the session) runs it where it was found, checked there: its pins resolved its relative paths from
 * that folder, and say nothing of the worktree's root. Your own hooks run in the session's folder.
 */
export function hookPlace(host: Host, h: DeclaredHook, cwd: string): HookPlace {
  const root = host.workspace.root;
  const projectDir = h.origin.projectDir ?? root;
  if (h.origin.dir === undefined) return { dir: cwd, pins: [root], projectDir };
  const base = host.confinementRoot(cwd);
  // At the root, or a file found inside the worktree itself (keel started there): pinned where it was found.
  if (base === root || inside(base, h.origin.dir)) return { dir: h.origin.dir, pins: [root], projectDir };
  const dir = join(base, relative(root, h.origin.dir));
  if (!existsSync(dir)) return { dir: h.origin.dir, pins: [root], projectDir };
  // `CLAUDE_PROJECT_DIR` names the worktree's copy of the project folder too ("$CLAUDE_PROJECT_DIR"/scripts/x.sh is the
  // worktree's script). Checked in the main checkout as well: a line naming a script by an absolute path runs the main checkout's.
  const mapped = join(base, relative(root, projectDir));
  return { dir, pins: [base, root], projectDir: existsSync(mapped) ? mapped : projectDir };
}
