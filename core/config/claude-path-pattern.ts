/** Which list a rule is in: Claude Code matches some path patterns at a different depth in allow lists. */
export type PermissionList = "allow" | "ask" | "deny";

/** A Claude Code path pattern as one keel glob (workspace-relative, picomatch), or why it cannot be one. */
export type PathPatternTranslation = { glob: string } | { error: string };

/** Characters picomatch treats specially but gitignore takes literally (braces, extglob parentheses, `!`, `+`, `@`). */
const PICOMATCH_ONLY = /[{}()!+@]/g;

/**
 * Translates the path specifier of a Claude Code `Read(...)` / `Edit(...)` rule, which follows
 * gitignore syntax, into one workspace-relative picomatch glob for keel's path rules:
 * `./x` and `x` are relative to the project root; `/x` is anchored at the project root (the folder
 * holding the settings file's `.claude/`); a pattern without a slash (other than a
 * trailing one) matches at any depth (`.env` → `**\/.env`); in deny and ask lists a single
 * directory segment followed by `/**` matches at any depth too (`secrets/**`), as Claude Code
 * documents. A matched directory covers everything under it, so the glob ends in `/**` (picomatch's
 * `x/**` also matches `x`). `//abs`, `~/`, `..`, and negation cannot be expressed by keel's
 * workspace-relative rules: those return an error, except `//**\/x`, which within the workspace
 * means `**\/x`. `scope` (a `.claude/` below the root, see ConfigLayer) puts the glob under that
 * folder (`packages/api/x/**`), except a deny or ask pattern matching at any depth, which keeps
 * matching anywhere in the workspace. Pure; never throws.
 */
export function claudePathToGlob(spec: string, list: PermissionList, scope?: string): PathPatternTranslation {
  const t = projectGlob(spec, list);
  if (!scope || "error" in t) return t;
  // A nested project's pattern is relative to its folder; one that matches at any depth keeps matching
  // anywhere in the workspace in deny and ask lists (the stricter reading), and only under the folder in allow lists.
  if (list !== "allow" && (t.glob === "**" || t.glob.startsWith("**/"))) return t;
  return { glob: `${scope.replace(GLOB_CHARS, "\\$&")}/${t.glob}` };
}

/** Characters a folder name must have escaped to be matched literally in a glob. */
const GLOB_CHARS = /[*?[\]{}()!+@\\]/g;

/** `claudePathToGlob` for a pattern of the workspace root's own settings. */
function projectGlob(spec: string, list: PermissionList): PathPatternTranslation {
  let p = spec.trim();
  if (!p) return { error: "the path pattern is empty" };
  if (p.startsWith("//")) {
    if (!p.startsWith("//**/")) return { error: "an absolute path (`//...`) cannot be expressed by keel's rules, which match paths relative to the workspace" };
    p = p.slice(2);
  } else if (p === "~" || p.startsWith("~/")) {
    return { error: "a home-directory path (`~/...`) cannot be expressed by keel's rules, which match paths relative to the workspace" };
  }
  if (p.startsWith("!")) return { error: "a negated pattern (`!...`) matches nothing in Claude Code and has no keel equivalent" };
  let anchored = false;
  if (p.startsWith("/")) {
    anchored = true;
    p = p.replace(/^\/+/, "");
  }
  while (p.startsWith("./")) p = p.slice(2).replace(/^\/+/, "");
  if (p === ".") p = "";
  p = p.replace(/\/+$/, "");
  if (p.split("/").includes(".."))
    return { error: "a path that leaves the project (`..`) cannot be expressed by keel's rules, which match paths inside the workspace" };
  if (p === "" || p === "**") return { glob: "**" };
  const escaped = p.replace(PICOMATCH_ONLY, "\\$&");
  const anyDepth = !anchored && !escaped.startsWith("**/") && (!escaped.includes("/") || (list !== "allow" && /^[^/]+\/\*\*$/.test(escaped)));
  const glob = anyDepth ? `**/${escaped}` : escaped;
  return { glob: glob.endsWith("/**") ? glob : `${glob}/**` };
}
