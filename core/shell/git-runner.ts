import { joinedScript, options, range, type Runner } from "./command-runners.js";
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
 * `git [-c KEY=VALUE | --config-env=KEY=VAR]… SUBCOMMAND …`: a setting whose value sh runs
 * (`core.pager`, `core.editor`, `core.sshCommand`, `pager.<cmd>`, …) is a script; an alias
 * `alias.x='!CMD'` used as the subcommand is `CMD ARGS…` run by sh, and another alias is `git VALUE
 * ARGS…`; a setting that runs or loads other code (filter and merge drivers, textconv, credential
 * helpers, gpg programs, hooks, `include.path`), a setting from the environment that runs code, and
 * `--exec-path=DIR` are parts keel cannot check.
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
};
