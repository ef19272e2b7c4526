import { stat } from "node:fs/promises";
import { join } from "node:path";
import { ToolError } from "../errors.js";
import { defineTool } from "../define-tool.js";
import type { ToolDefinition } from "../types.js";
import { pathToolTraits } from "./path-tool-traits.js";
import { confinePath, displayPath } from "./confine-path.js";
import { LOSSY_NAME_HINT, lossyPath, shownPath, unwalkedFoldersNote } from "../shown-path.js";

/** Most paths glob returns; the rest are counted in a note. */
export const GLOB_MAX_RESULTS = 1000;

/**
 * `glob`: workspace files matching a glob pattern, sorted by path, capped; skips what the repository's
 * .gitignore, .ignore and .rgignore files ignore (`GitIgnores`), and .git, node_modules and .keel, by default. The pattern (which the model writes) is matched in linear time (`findFiles`):
 * `*`, `**`, `?`, `[...]` and `{a,b}` (other picomatch syntax where RE2 can run it); a pattern
 * that cannot be matched in bounded time (an extglob like `!(x)`) is refused with a message.
 * Never lists a match whose real path is outside the boundary, nor one a path deny rule of
 * read_file, grep or glob denies (both counted in `data`). A path with a newline, another control or
 * invisible character is shown as a JSON string (`shownPath`), so one entry never reads as two.
 */
export function globTool(): ToolDefinition {
  const inputSchema = {
    type: "object",
    properties: {
      pattern: { type: "string", minLength: 1, description: "Glob pattern, relative to `path`" },
      path: { type: "string", description: "Folder to search, relative to the workspace (default: the workspace root)" },
      include_ignored: { type: "boolean", description: "Also search what .gitignore, .ignore and .rgignore files ignore, and .git, node_modules and .keel" },
    },
    required: ["pattern"],
    additionalProperties: false,
  } as const;
  return defineTool(inputSchema, {
    name: "glob",
    description: `Find files by glob pattern (e.g. "**/*.ts", "src/**/test-*.js") under a folder of the workspace. Skips files that .gitignore, .ignore and .rgignore files ignore, and .git, node_modules and .keel, unless include_ignored is true. Returns at most ${GLOB_MAX_RESULTS} paths, relative to the workspace.`,
    ...pathToolTraits("read"),
    async execute(input, ctx) {
      const dir = confinePath(ctx.root, input.path ?? ".", "path", ctx.cwd);
      const st = await stat(dir).catch(() => undefined);
      if (!st?.isDirectory())
        throw new ToolError(
          `${input.path} is ${st ? "a file, not a folder" : "not found"}. Set \`path\` to a folder (or omit it for the workspace root).`,
          "execution_failed",
        );
      // The search machinery loads on the first search: listing the tools loads none of it.
      const [{ findFiles }, { READ_TOOLS, reachableFiles }, { GitIgnores, ignoredHint, unappliedIgnoresNote }] = await Promise.all([
        import("./find-files.js"),
        import("./reachable-files.js"),
        import("./git-ignores.js"),
      ]);
      const unwalked: string[] = [];
      const ignores = input.include_ignored ? undefined : GitIgnores.forWalk(ctx.root, ctx.host.env);
      let skippedIgnored = 0;
      const found = await findFiles(dir, input.pattern, {
        includeIgnored: input.include_ignored,
        gitIgnored: ignores && ((abs: string, isDir: boolean) => ignores.ignored(abs, isDir)),
        onIgnored: () => skippedIgnored++,
        root: ctx.root,
        signal: ctx.signal,
        onUnwalkable: (f) => unwalked.push(displayPath(ctx.cwd, join(dir, f))),
      });
      const {
        files: matches,
        skippedOutside,
        skippedDenied,
        deniedBy,
      } = await reachableFiles(ctx.root, dir, found, ctx.host.permissions, READ_TOOLS, ctx.signal);
      const paths = matches.slice(0, GLOB_MAX_RESULTS).map((m) => displayPath(ctx.cwd, m.path));
      const omitted = matches.length - paths.length;
      const lines = paths.length
        ? paths.map((p) => shownPath(p))
        : [`No files match "${input.pattern}" under ${where(displayPath(ctx.cwd, dir))}.${ignoredHint(skippedIgnored)}`];
      if (omitted > 0) lines.push(`[${omitted} more matches not shown; ${matches.length} in total. Use a narrower pattern or path.]`);
      if (skippedDenied > 0) lines.push(`[${skippedDenied} match(es) not listed: denied by ${deniedBy.map((r) => `"${r}"`).join(", ")}]`);
      if (skippedOutside > 0) lines.push(`[${skippedOutside} match(es) not listed: they lead outside the workspace through a symlink]`);
      const lossy = paths.filter(lossyPath).length;
      if (lossy > 0) lines.push(`[${lossy} path(s) above hold \\ufffd: ${LOSSY_NAME_HINT}]`);
      const unwalkedNote = unwalkedFoldersNote(unwalked);
      if (unwalkedNote !== undefined) lines.push(unwalkedNote);
      const unappliedNote = unappliedIgnoresNote(ignores?.unapplied ?? 0);
      if (unappliedNote !== undefined) lines.push(unappliedNote);
      return {
        content: lines.join("\n"),
        data: {
          paths,
          total: matches.length,
          truncated: omitted > 0,
          skippedDenied,
          skippedOutside,
          skippedIgnored,
          skippedFolders: unwalked.length,
          unappliedIgnoreFiles: ignores?.unapplied ?? 0,
        },
        metadata: { path: displayPath(ctx.cwd, dir) },
      };
    },
  });
}

/** A searched folder as the "no match" sentence names it: `.` (which read as `under ..`) spelled out. */
function where(shown: string): string {
  return shown === "." ? "the current folder (.)" : shownPath(shown);
}
