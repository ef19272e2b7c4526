import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** Most bytes of a user-level git config read for `core.excludesFile`. */
const CONFIG_MAX_BYTES = 256 * 1024;

/**
 * Where the user's global git excludes file is, as git finds it: `core.excludesFile` of the user's own git config
 * (`~/.gitconfig`, then `$XDG_CONFIG_HOME/git/config`, default `~/.config/git/config`; the last one setting it wins, as
 * git reads the XDG file first and `~/.gitconfig` after it), else `$XDG_CONFIG_HOME/git/ignore` (default
 * `~/.config/git/ignore`). `GIT_CONFIG_GLOBAL`, when set, is read in place of both config files, as git does. Only those
 * user-level files are read, as data (a plain `[core]` section; `include`s are not followed): never a repository's config.
 * Undefined without a home. Never throws.
 */
export function globalExcludesFile(env: NodeJS.ProcessEnv): string | undefined {
  const home = env.HOME || homedir();
  if (!home || !isAbsolute(home)) return undefined;
  const xdg = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, ".config");
  let set: string | undefined;
  const given = env.GIT_CONFIG_GLOBAL;
  const configs = given ? (isAbsolute(given) ? [given] : []) : [join(xdg, "git", "config"), join(home, ".gitconfig")];
  for (const config of configs) set = excludesFileIn(readSmall(config)) ?? set;
  if (set !== undefined) return set.startsWith("~/") ? join(home, set.slice(2)) : isAbsolute(set) ? set : undefined;
  return join(xdg, "git", "ignore");
}

/** The last `excludesFile` of a `[core]` section in git config text, unquoted; undefined when none. */
function excludesFileIn(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  let inCore = false;
  let found: string | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const section = /^\[\s*([A-Za-z0-9.-]+)\s*(?:"[^"]*")?\s*\]/.exec(line);
    if (section) inCore = section[1]!.toLowerCase() === "core" && !line.includes('"');
    const entry = inCore ? /^(?:\[[^\]]*\]\s*)?excludesfile\s*=\s*(.*)$/i.exec(line) : null;
    if (!entry) continue;
    let value = withoutComment(entry[1]!).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    found = value === "" ? undefined : value;
  }
  return found;
}

/** `value` up to its comment: a `#` or `;` outside double quotes starts one, as git reads it (one pass: the line may be long). */
function withoutComment(value: string): string {
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === "\\") i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "#" || c === ";")) return value.slice(0, i);
  }
  return value;
}

/** A regular file's text (through a link: dotfile managers link these), at most CONFIG_MAX_BYTES; undefined when missing or not a file. */
function readSmall(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buf = Buffer.alloc(CONFIG_MAX_BYTES);
    let len = 0;
    for (let n = 1; n > 0 && len < buf.length; len += n) n = readSync(fd, buf, len, buf.length - len, len);
    return buf.subarray(0, len).toString("utf8");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
