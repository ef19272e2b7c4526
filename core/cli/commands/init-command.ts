import { lstatSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { errorMessage, StateError } from "../../errors.js";
import { resolveWorkspace } from "../../workspace.js";
import type { CliContext } from "../cli-context.js";
import { initFiles } from "../init-files.js";

/** What `keel init` did with one file. */
export interface InitOutcome {
  path: string;
  status: "created" | "kept";
  about: string;
}

/**
 * `keel init`: writes the starter files into the workspace root, each only when nothing is at its
 * path (an existing file, or a link, is kept untouched). A second run changes nothing. StateError
 * (exit 1) when a file cannot be written.
 */
export async function initCommand(ctx: CliContext): Promise<void> {
  const g = ctx.globals();
  const root = resolveWorkspace(g.cwd, ctx.io.env).root;
  const files: InitOutcome[] = [];
  for (const file of initFiles()) {
    const target = join(root, ...file.path.split("/"));
    files.push({ path: file.path, status: writeNew(root, target, file.text) ? "created" : "kept", about: file.about });
  }
  const created = files.filter((f) => f.status === "created").length;
  ctx.print({ root, files }, () =>
    [
      `keel init in ${root}:`,
      ...files.map(
        (f) => `  ${f.status === "created" ? "created" : "kept   "} ${f.path.padEnd(28)} ${f.status === "created" ? f.about : "(already there, not changed)"}`,
      ),
      created
        ? "Next: edit the files, run `keel trust` to let this workspace's plugins and servers widen what keel does, then `keel doctor`."
        : "Nothing to do: every file was already there.",
    ].join("\n"),
  );
}

/** Creates `target` with `text` unless something is there (never follows a link planted at the path or its folders). */
function writeNew(root: string, target: string, text: string): boolean {
  if (exists(target)) return false;
  let dir = root;
  for (const part of relative(root, dirname(target)).split(/[\\/]/).filter(Boolean)) {
    dir = join(dir, part);
    if (exists(dir) && !lstatSync(dir).isDirectory())
      throw new StateError(`Cannot write ${relative(root, target)}: ${relative(root, dir)} is not a folder (a link or a file). Move it away, then retry.`, dir);
  }
  try {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text, { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new StateError(`Cannot write ${target}: ${errorMessage(error)}`, target);
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
