import { existsSync } from "node:fs";
import { join } from "node:path";
import type { SimpleGit } from "simple-git";
import { errorMessage, UsageError } from "../../core/index.js";

/**
 * `-c` settings (`submodule.<name>.ignore=dirty`) for a `git merge` in the checkout at `root`: for
 * every submodule whose `ignore` the repository sets (its `.gitmodules` in the work tree, the index
 * or HEAD, or its config). `git merge` first runs `git stash create`, which runs `git status` inside
 * each checked-out submodule whose `ignore` is `none` or `untracked` — with that submodule's own
 * `.git` config (its `core.fsmonitor`, filters), which a sandboxed command can write. A name git
 * cannot take in a `-c` setting (holding `=` or a line break) is a UsageError.
 */
export async function submoduleIgnoreOverrides(git: SimpleGit, root: string): Promise<string[]> {
  const sources = [[], ["--blob", ":.gitmodules"], ["--blob", "HEAD:.gitmodules"]];
  if (existsSync(join(root, ".gitmodules"))) sources.push(["--file", join(root, ".gitmodules")]);
  const keys = new Set<string>();
  for (const source of sources) for (const key of await ignoreKeys(git, source)) keys.add(key);
  const bad = [...keys].find((k) => /[=\n]/.test(k));
  if (bad)
    throw new UsageError(
      `keel cannot merge in ${root}: the submodule setting ${JSON.stringify(bad)} names a submodule keel cannot override on git's command line, and merging could run git inside that submodule. Rename the submodule in .gitmodules, or merge by hand.`,
    );
  return [...keys].map((k) => `${k}=dirty`);
}

/** The `submodule.<name>.ignore` keys one config source sets (none when it sets none or does not exist). A source git cannot parse is a UsageError. */
async function ignoreKeys(git: SimpleGit, source: string[]): Promise<string[]> {
  try {
    const out = await git.raw(["config", ...source, "-z", "--name-only", "--get-regexp", "^submodule\\..*\\.ignore$"]);
    return out.split("\0").filter(Boolean);
  } catch (error) {
    const message = errorMessage(error);
    if (!message.includes("fatal:")) return [];
    throw new UsageError(`keel cannot merge: git cannot read the submodule settings (${message.trim().split("\n")[0]}). Fix the file it names, then retry.`);
  }
}
