import { DISCARDED_REF_PREFIX } from "./discard-worktree.js";
import { gitAt } from "./git-client.js";

/** One saved piece of discarded work under `refs/keel/discarded/`. */
export interface DiscardedRef {
  ref: string;
  /** `<name>-<timestamp>` part of the ref. */
  label: string;
  commit: string;
  date: string;
  subject: string;
  /** Command that restores the work as a branch. */
  restore: string;
}

/** Lists `refs/keel/discarded/*` newest first, each with the command that restores it. */
export async function listDiscardedRefs(repoRoot: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<DiscardedRef[]> {
  const git = await gitAt(repoRoot, { env, signal });
  const out = await git.raw([
    "for-each-ref",
    "--sort=-creatordate",
    "--format=%(refname)%09%(objectname:short)%09%(creatordate:iso-strict)%09%(subject)",
    DISCARDED_REF_PREFIX,
  ]);
  return out
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [ref = "", commit = "", date = "", subject = ""] = line.split("\t");
      const label = ref.slice(DISCARDED_REF_PREFIX.length);
      return { ref, label, commit, date, subject, restore: `git branch restored/${label} ${ref}` };
    });
}
