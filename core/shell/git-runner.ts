import { joinedScript, options, range, type Runner, type RunnerSink } from "./command-runners.js";
import { gitSettingScript, gitSettingUse } from "./git-config.js";
import type { OptionSpec } from "./wrapper-options.js";

/** git's own options, before its subcommand. */
const GIT: OptionSpec = {
  values: ["-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--attr-source", "--list-cmds"],
  flags: [
    ...["-p", "-P", "--paginate", "--no-pager", "--bare", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs"],
    ...["--icase-pathspecs", "--no-optional-locks", "--no-advice", "--no-lazy-fetch", "--html-path", "--man-path", "--info-path", "--version", "-v"],
    ...["--help", "-h"],
  ],
  optional: ["--exec-path"],
};

/**
 * git's built-in commands (`git --list-cmds=builtins`, git 2.39). Any other subcommand runs the program
 * `git-<name>` (from git's exec path, then PATH) before an alias is tried: `git foo x` is `git-foo x` to
 * deny rules. A built-in missing here is only reported as such a program too (a rule for it is unlikely).
 */
const GIT_BUILTINS = new Set(
  (
    "add am annotate apply archive bisect--helper blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap " +
    "check-ref-format checkout checkout--worker checkout-index cherry cherry-pick clean clone column commit commit-graph commit-tree " +
    "config count-objects credential credential-cache credential-cache--daemon credential-store describe diagnose diff diff-files " +
    "diff-index diff-tree difftool env--helper fast-export fast-import fetch fetch-pack fmt-merge-msg for-each-ref for-each-repo " +
    "format-patch fsck fsck-objects fsmonitor--daemon gc get-tar-commit-id grep hash-object help hook index-pack init init-db " +
    "interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-index " +
    "merge-ours merge-recursive merge-recursive-ours merge-recursive-theirs merge-subtree merge-tree mktag mktree multi-pack-index mv " +
    "name-rev notes pack-objects pack-redundant pack-refs patch-id pickaxe prune prune-packed pull push range-diff read-tree rebase " +
    "receive-pack reflog remote remote-ext remote-fd repack replace rerere reset restore rev-list rev-parse revert rm send-pack " +
    "shortlog show show-branch show-index show-ref sparse-checkout stage stash status stripspace submodule--helper switch symbolic-ref " +
    "tag unpack-file unpack-objects update-index update-ref update-server-info upload-archive upload-archive--writer upload-pack var " +
    "verify-commit verify-pack verify-tag version whatchanged worktree write-tree"
  ).split(" "),
);

/**
 * `git [-c KEY=VALUE | --config-env=KEY=VAR]… SUBCOMMAND …`: a setting whose value sh runs
 * (`core.pager`, `core.editor`, `core.sshCommand`, `pager.<cmd>`, …) is a script; an alias
 * `alias.x='!CMD'` used as the subcommand is `CMD ARGS…` run by sh, and another alias is `git VALUE
 * ARGS…`; a setting that runs or loads other code (filter and merge drivers, textconv, credential
 * helpers, gpg programs, hooks, `include.path`), a setting from the environment that runs code, and
 * `--exec-path=DIR` are parts keel cannot check. A subcommand that is not built in runs `git-<name>`.
 */
export const git: Runner = (args, isLiteral, sink) => {
  const read = options("git", args, isLiteral, GIT, sink);
  if (!read) return;
  const sub = read.rest < args.length ? args[read.rest] : undefined;
  const after = read.rest + 1;
  for (const o of read.options) {
    if (o.name === "--exec-path" && o.value !== undefined) return sink.unresolved("`git --exec-path=DIR` runs git's commands from DIR");
    if (o.name !== "-c" && o.name !== "--config-env") continue;
    if (!o.literal) return sink.unresolved(`\`git ${o.name}\` with a setting that is not literal`);
    const eq = o.value!.indexOf("=");
    const key = eq === -1 ? o.value! : o.value!.slice(0, eq);
    const value = eq === -1 ? undefined : o.value!.slice(eq + 1);
    const use = gitSettingUse(key, o.name === "-c" ? value : undefined);
    if (use === undefined) continue;
    if (o.name === "--config-env") return sink.unresolved(`\`git --config-env=${key}=…\` takes a setting that runs a command from the environment`);
    if (use === "code") return sink.unresolved(`\`git -c ${key}=…\` runs or loads a program keel cannot check`);
    if (use === "shell") {
      sink.script(gitSettingScript(key, value ?? ""));
      continue;
    }
    // An alias: used as the subcommand, its words run with the arguments after it.
    const alias = key.slice(key.indexOf(".") + 1);
    if (sub === undefined || sub.toLowerCase() !== alias.toLowerCase()) continue;
    const shell = value?.startsWith("!");
    // `-c alias.a=b -c alias.b='!rm x' a`: the alias's git runs with these settings too.
    if (!shell && read.options.some((other) => other !== o && other.value !== undefined && gitSettingUse(other.value.split("=")[0]!) !== undefined))
      return sink.unresolved(`\`git -c alias.${alias}\` runs git again with settings that run commands`);
    const words = [shell ? value!.slice(1) : `git ${value ?? ""}`, ...args.slice(after)];
    joinedScript(`\`git -c alias.${alias}\``, words, [true, ...range(after, args.length, isLiteral)], sink);
  }
  if (sub === undefined) return;
  // `git foo x` runs `git-foo x`, found as the program would be: the same call under another name (as `npx`'s).
  if (!GIT_BUILTINS.has(sub)) sink.run([`git-${sub}`, ...args.slice(after)], [isLiteral(read.rest), ...range(after, args.length, isLiteral)], true);
  subcommand(sub, args.slice(after), (k) => isLiteral(after + k), sink);
};

/** Options of git subcommands whose value is a command (sh runs it, or a remote shell, or locally for a local repository). */
const COMMAND_OPTIONS: Record<string, { long: string[]; short: string }> = {
  rebase: { long: ["--exec"], short: "x" },
  difftool: { long: ["--extcmd"], short: "x" },
  "filter-branch": {
    long: ["--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter"],
    short: "",
  },
  "send-email": { long: ["--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd", "--smtp-server"], short: "" },
  fetch: { long: ["--upload-pack"], short: "" },
  pull: { long: ["--upload-pack"], short: "" },
  clone: { long: ["--upload-pack"], short: "u" },
  "ls-remote": { long: ["--upload-pack"], short: "" },
  push: { long: ["--receive-pack", "--exec"], short: "" },
  archive: { long: ["--exec"], short: "" },
};

/**
 * `git rebase --exec CMD`, `difftool -x CMD`, `filter-branch --tree-filter CMD`, `fetch --upload-pack=CMD`
 * and the like: the value is a script; `git bisect run CMD…` and `git submodule foreach CMD…` run their
 * words. git takes an unambiguous prefix of a long option (`--exe`), read here as the option; a word
 * before `--` that is not literal could be one of them: a part keel cannot check.
 */
function subcommand(sub: string, words: string[], isLiteral: (i: number) => boolean, sink: RunnerSink): void {
  if (sub === "bisect" && words[0] === "run") return words.length > 1 ? sink.run(words.slice(1), range(1, words.length, isLiteral)) : undefined;
  if (sub === "submodule") {
    const at = words.indexOf("foreach");
    if (at === -1) return;
    let start = at + 1;
    while (words[start] === "--recursive" || words[start] === "-q" || words[start] === "--quiet") start++;
    if (start < words.length) joinedScript("`git submodule foreach`", words.slice(start), range(start, words.length, isLiteral), sink);
    return;
  }
  const spec = Object.hasOwn(COMMAND_OPTIONS, sub) ? COMMAND_OPTIONS[sub] : undefined;
  if (!spec) return;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") return;
    if (!isLiteral(i)) return sink.unresolved(`\`git ${sub}\` has a word that is not literal (\`${word}\`), which could be an option that runs a command`);
    const next = (): string | undefined => {
      if (i + 1 >= words.length) return undefined;
      if (!isLiteral(i + 1)) return void sink.unresolved(`\`git ${sub} ${word}\` with a command that is not literal`);
      return words[++i];
    };
    let value: string | undefined;
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const written = eq === -1 ? word : word.slice(0, eq);
      if (written.length < 4 || !spec.long.some((o) => o.startsWith(written))) continue;
      value = eq === -1 ? next() : word.slice(eq + 1);
    } else if (word.startsWith("-") && spec.short) {
      const k = word.indexOf(spec.short, 1);
      if (k === -1) continue;
      value = k + 1 < word.length ? word.slice(k + 1) : next();
    }
    if (value !== undefined) sink.script(value);
  }
}
