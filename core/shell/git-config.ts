/**
 * What git runs from its settings and environment: `git -c core.pager='rm x' log` runs `rm x`
 * through sh, `-c alias.x='!rm x' x` too, `-c filter.f.clean=…`, `credential.helper`, `include.path`
 * (another config file) and the like run or load code; so do `GIT_PAGER=…`, `GIT_SSH_COMMAND=…`,
 * `EDITOR=…` before a command. Rules see the command line only: a repository's own config can set the
 * same (the OS sandbox is the boundary there).
 */

/** How git uses a setting's value: `shell` runs it with sh, `alias` is an alias, `code` runs or loads something keel cannot check exactly. */
export type GitSettingUse = "shell" | "alias" | "code";

/** Words standing for the arguments a program appends: a file for an editor (`EDITOR=rm` runs `rm FILE`), `"$@"` for others. */
const ARGUMENTS = ' "$@"';
/** What an ssh command is given: a host and the command to run there (`rsync -e 'ssh -p 22'` reads as `ssh -p 22 HOST COMMAND`). */
export const SSH_ARGUMENTS = " HOST COMMAND";

/** Settings whose value sh runs (`sh -c VALUE`), with the arguments git appends (an editor the file, ssh the host and command). */
const SHELL_SETTINGS = new Map([
  ["core.pager", ""],
  ["interactive.difffilter", ""],
  ["core.editor", ARGUMENTS],
  ["sequence.editor", ARGUMENTS],
  ["core.sshcommand", SSH_ARGUMENTS],
  ["diff.external", ARGUMENTS],
  ["uploadpack.packobjectshook", ARGUMENTS],
]);

/** The script a shell setting runs: its value, with git's arguments if it takes any. */
export function gitSettingScript(key: string, value: string): string {
  return value + (SHELL_SETTINGS.get(key.toLowerCase()) ?? "");
}

/** Sections every setting of which names a program or a file of settings. */
const CODE_SECTIONS = new Set([
  "include",
  "includeif",
  "filter",
  "credential",
  "gpg",
  "sendemail",
  "browser",
  "man",
  "difftool",
  "mergetool",
  "hook",
  "trailer",
  "safe",
]);

/** Setting names (last part) that name a program, a hook directory or a template with hooks, in any section. */
const CODE_NAMES = new Set([
  ...["sshcommand", "askpass", "fsmonitor", "hookspath", "gitproxy", "alternaterefscommand", "textconv", "command", "cmd", "driver", "program"],
  ...["helper", "path", "templatedir", "packobjectshook", "receivepack", "uploadpack", "defaultkeycommand", "difffilter"],
  ...["external", "clean", "smudge", "process", "viewer", "vcs", "update", "proxycommand"],
]);

/** A git boolean: `pager.log=false` turns the pager off rather than naming one. */
const BOOLEAN = /^(true|false|yes|no|on|off|1|0|)$/i;

/**
 * How git uses the value of setting `key` (`core.pager`, `alias.x`, `diff.<driver>.textconv`), or
 * undefined for one that runs nothing (`user.name`, `color.ui`). A key git would not read as one
 * (no section, odd characters) is `code`: keel cannot say which setting it is.
 */
export function gitSettingUse(key: string, value?: string): GitSettingUse | undefined {
  const match = /^([A-Za-z0-9-]+)(?:\.(.*))?\.([A-Za-z][A-Za-z0-9-]*)$/s.exec(key);
  if (!match) return "code";
  const section = match[1]!.toLowerCase();
  const sub = match[2];
  const name = match[3]!.toLowerCase();
  if (section === "alias") return sub === undefined ? "alias" : "code";
  if (sub === undefined && SHELL_SETTINGS.has(`${section}.${name}`)) return "shell";
  if (section === "pager" && sub === undefined) return value !== undefined && BOOLEAN.test(value) ? undefined : "shell";
  if (section === "protocol" && name === "allow") return "code"; // `protocol.ext.allow=always`: `ext::CMD` URLs run CMD
  if (CODE_SECTIONS.has(section) || CODE_NAMES.has(name)) return "code";
  return undefined;
}

/** Variables whose value sh runs, for git and other programs (`PAGER`, `EDITOR`: `man`, `crontab -e`, `less`), with the arguments appended. */
const SHELL_VARIABLES = new Map([
  ["GIT_PAGER", ""],
  ["PAGER", ""],
  ["GIT_EDITOR", ARGUMENTS],
  ["EDITOR", ARGUMENTS],
  ["VISUAL", ARGUMENTS],
  ["GIT_SEQUENCE_EDITOR", ARGUMENTS],
  ["GIT_SSH_COMMAND", SSH_ARGUMENTS],
  ["GIT_EXTERNAL_DIFF", ARGUMENTS],
  ["RSYNC_RSH", SSH_ARGUMENTS],
  ["RSYNC_CONNECT_PROG", ""],
]);
/** Variables naming a program git runs, without a shell, with arguments of its own. */
const PROGRAM_VARIABLES = new Map([
  ["GIT_SSH", SSH_ARGUMENTS],
  ["GIT_ASKPASS", ARGUMENTS],
  ["SSH_ASKPASS", ARGUMENTS],
  ["GIT_PROXY_COMMAND", ARGUMENTS],
]);
/** Variables that make git read settings or programs from elsewhere. */
const CODE_VARIABLES = new Set(["GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR"]);

/**
 * What setting `variable` to `value` (undefined: not known statically) makes programs run: a script
 * sh runs (`GIT_PAGER='rm x'`), or why keel cannot check it; nothing for other variables.
 */
export function environmentCode(variable: string, value: string | undefined): { script?: string; unresolved?: string } {
  const shell = SHELL_VARIABLES.has(variable);
  if (!shell && !PROGRAM_VARIABLES.has(variable) && !CODE_VARIABLES.has(variable) && !/^GIT_CONFIG_KEY_/.test(variable)) return {};
  if (CODE_VARIABLES.has(variable)) return { unresolved: `\`${variable}\` makes git read settings or programs keel cannot check` };
  if (value === undefined) return { unresolved: `\`${variable}\` set to a value that is not literal: a program runs it` };
  if (/^GIT_CONFIG_KEY_/.test(variable))
    return gitSettingUse(value) ? { unresolved: `\`${variable}=${value}\`: a git setting that runs a command keel cannot check` } : {};
  if (shell) return { script: value + SHELL_VARIABLES.get(variable)! };
  // A program path, run without a shell and with arguments: plain, it is that command; anything else keel cannot read as git does.
  return /^[\w./+-]+$/.test(value)
    ? { script: value + PROGRAM_VARIABLES.get(variable)! }
    : { unresolved: `\`${variable}\` names a program keel cannot read exactly` };
}
