import { UsageError } from "../../core/index.js";

/**
 * Repository settings naming a program that keel's local git commands (status, diff --name-only, add,
 * commit, merge, worktree add/remove, ls-files, update-index) run: filter drivers (`clean`, `smudge`,
 * `process`; `.gitattributes` picks them per path), merge drivers (`merge.<name>.driver`, for a path
 * that differs on both sides), the signing program of a signed commit or merge (`gpg.program`,
 * `gpg.<format>.program`, `gpg.ssh.defaultKeyCommand`). `core.fsmonitor` is set off for every call (KEEL_GIT_CONFIG).
 */
const PROGRAM_KEYS = /^(filter\..+\.(clean|smudge|process)|merge\..+\.driver|gpg\.(program|[^.]+\.program|ssh\.defaultkeycommand))$/;
/** Scopes a repository (a file a sandboxed command may write: `.git/config`, `config.worktree`) defines. */
const REPOSITORY_SCOPES = new Set(["local", "worktree"]);

/** What a key is set to when only the repository set it: no filter; a merge driver that leaves the path in conflict (the merge stops); git's own signing programs. */
function neutral(key: string): string {
  if (key.startsWith("filter.") || key === "gpg.ssh.defaultkeycommand") return "";
  if (key.startsWith("merge.")) return "false";
  if (key === "gpg.x509.program") return "gpgsm";
  if (key === "gpg.ssh.program") return "ssh-keygen";
  return "gpg";
}

/**
 * `-c key=value` settings that keep keel's git (run outside the sandbox, in a repository a sandboxed
 * command may have made: `sub/.git`, a worktree's config) from running a program the repository's own
 * config names (see PROGRAM_KEYS): each such key set in the repository gets the value your global or
 * system config gives it, else a neutral one. Command-line settings beat repository config.
 * Rejects when git cannot list its configuration (it would not run the command either), and with a
 * UsageError for a key git cannot take in a `-c` setting (a driver name holding `=`).
 */
export async function repoProgramOverrides(git: string, dir: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<string[]> {
  const { execa } = await import("execa");
  const listed = await execa(git, ["config", "--show-scope", "-z", "--get-regexp", PROGRAM_KEYS.source], {
    cwd: dir,
    env,
    extendEnv: false,
    stdin: "ignore",
    cancelSignal: signal,
    maxBuffer: 16 * 1024 * 1024,
    reject: false,
    stripFinalNewline: false,
  });
  // exit 1: no such key
  if (listed.isCanceled) throw signal?.reason ?? new Error("keel's git was cancelled");
  if (listed.failed && listed.exitCode !== 1)
    throw new Error(`keel could not read git's configuration in ${dir} (${String(listed.stderr).trim() || listed.shortMessage}); fix it and try again.`);
  const fromRepository = new Set<string>();
  const yours = new Map<string, string>();
  const fields = String(listed.stdout).split("\0");
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i]!;
    const entry = fields[i + 1]!;
    const cut = entry.indexOf("\n");
    const key = cut < 0 ? entry : entry.slice(0, cut);
    if (!PROGRAM_KEYS.test(key.toLowerCase())) continue;
    if (REPOSITORY_SCOPES.has(scope)) fromRepository.add(key);
    else if (scope !== "command") yours.set(key, cut < 0 ? "" : entry.slice(cut + 1));
  }
  const bad = [...fromRepository].find((k) => k.includes("="));
  if (bad)
    throw new UsageError(
      `keel will not run git in ${dir}: the repository's setting ${JSON.stringify(bad)} names a program, and keel cannot override a name holding "=" on git's command line. Remove it (git config --unset), or run git there by hand.`,
    );
  return [...fromRepository].map((key) => `${key}=${yours.get(key) ?? neutral(key.toLowerCase())}`);
}
