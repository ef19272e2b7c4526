import { lstatSync, mkdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { StateError } from "../../errors.js";
import { PRIVATE_DIR_MODE, writeNewOwnFileSync } from "../../state/own-path.js";
import { storageMessage } from "../../state/storage-problem.js";
import { resolveWorkspace } from "../../workspace.js";
import type { CliContext } from "../cli-context.js";
import { initFiles } from "../init-files.js";

/** What `keel init` did with one file. */
export interface InitOutcome {
  path: string;
  status: "created" | "kept" | "refused";
  about: string;
  /** Why a file was refused (a link or a file where a folder goes, an unwritable folder). */
  reason?: string;
}

/**
 * `keel init`: writes the starter files into the workspace root, each only when nothing is at its
 * path (an existing file, or a link, is kept untouched). A second run changes nothing. A file that
 * cannot be written (a link where its folder goes) is reported as refused, with why, after the others
 * are written; the exit code is then 1.
 */
export async function initCommand(ctx: CliContext): Promise<void> {
  const g = ctx.globals();
  const root = resolveWorkspace(g.cwd, ctx.io.env).root;
  const files: InitOutcome[] = [];
  for (const file of initFiles()) {
    const target = join(root, ...file.path.split("/"));
    try {
      files.push({ path: file.path, status: writeNew(root, target, file.text) ? "created" : "kept", about: file.about });
    } catch (error) {
      if (!(error instanceof StateError)) throw error;
      files.push({ path: file.path, status: "refused", about: file.about, reason: error.message });
    }
  }
  const refused = files.filter((f) => f.status === "refused").length;
  if (refused) ctx.setExitCode(1);
  const created = files.filter((f) => f.status === "created").length;
  ctx.print({ root, files }, () =>
    [
      `keel init in ${root}:`,
      ...files.map(
        (f) =>
          `  ${f.status.padEnd(7)} ${f.path.padEnd(28)} ${f.status === "created" ? f.about : f.status === "kept" ? "(already there, not changed)" : f.reason}`,
      ),
      refused
        ? "Fix what is named above, then run `keel init` again (it keeps every file already there)."
        : created
          ? "Next: edit the files, run `keel trust` to let this workspace's plugins and servers widen what keel does, then `keel doctor`."
          : "Nothing to do: every file was already there.",
    ].join("\n"),
  );
}

/** Creates `target` with `text` unless something is there (never follows a link planted at the path or its folders). */
function writeNew(root: string, target: string, text: string): boolean {
  if (lstatSync(target, { throwIfNoEntry: false })) return false;
  let dir = root;
  for (const part of relative(root, dirname(target)).split(/[\\/]/).filter(Boolean)) {
    dir = join(dir, part);
    if (lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() === false)
      throw new StateError(`Cannot write ${relative(root, target)}: ${relative(root, dir)} is not a folder (a link or a file). Move it away, then retry.`, dir);
  }
  try {
    // `.keel/` (for its .gitignore) is keel's state folder: private, as keel makes it elsewhere
    const state = dirname(target) === join(root, ".keel");
    mkdirSync(dirname(target), { recursive: true, ...(state ? { mode: PRIVATE_DIR_MODE } : {}) });
    // Created new (O_EXCL, never through a link); a write that fails (a full disk) removes it: an empty file left
    // here would be kept by the next `keel init` as "already there". Starter files are the project's, not keel's
    // private state: the umask sets their mode (0644 under 022), as for any file you make.
    return writeNewOwnFileSync(target, text, state ? undefined : 0o666);
  } catch (error) {
    throw new StateError(`Cannot write ${target}: ${storageMessage(error)}`, target);
  }
}
