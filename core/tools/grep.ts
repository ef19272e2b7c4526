import { stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { ToolError } from "../errors.js";
import { defineTool } from "../define-tool.js";
import type { ToolDefinition } from "../types.js";
import { pathToolTraits } from "./path-tool-traits.js";
import { confinePath, displayPath } from "./confine-path.js";
import { GREP_IN_MEMORY_BYTES, NOT_SYNC, OUTSIDE, readText, readTextSync, type GrepRead } from "./grep-read.js";
import { LOSSY_NAME_HINT, lossyPath, unwalkedFoldersNote } from "../shown-path.js";
import { GREP_MAX_CONTEXT, GrepOutput } from "./grep-output.js";
import { MAX_LINE_CHARS as MAX_SCANNED_LINE_CHARS, scanLines } from "./scan-lines.js";

/** Matching lines grep returns when `max_results` is not given. */
export const GREP_DEFAULT_RESULTS = 200;
/** Largest `max_results` grep accepts. */
export const GREP_MAX_RESULTS = 5000;
export { GREP_IN_MEMORY_BYTES };

/** Longest the search reads files without letting other work run (ms): small files are read synchronously. */
const SLICE_MS = 10;

/**
 * `grep`: lines matching a regular expression (RE2, linear time) in workspace files, as `file:line: text`; skips binary
 * files and, unless `include_ignored`, what .gitignore, .ignore and .rgignore files ignore (`GitIgnores`) and .git, node_modules and .keel; streams large files.
 */
export function grepTool(): ToolDefinition {
  const inputSchema = {
    type: "object",
    properties: {
      pattern: { type: "string", minLength: 1, description: "Regular expression in RE2 syntax (without slashes)" },
      path: { type: "string", description: "Folder or file to search, relative to the workspace (default: the workspace root)" },
      glob: { type: "string", description: "Only search files matching this glob, relative to `path` (default **/*)" },
      ignore_case: { type: "boolean", description: "Case-insensitive match" },
      include_ignored: { type: "boolean", description: "Also search what .gitignore, .ignore and .rgignore files ignore, and .git, node_modules and .keel" },
      max_results: {
        type: "integer",
        minimum: 1,
        maximum: GREP_MAX_RESULTS,
        description: `Most matching lines (or files, in the other output modes) to return (default ${GREP_DEFAULT_RESULTS})`,
      },
      output_mode: {
        type: "string",
        enum: ["content", "files_with_matches", "count"],
        description: "content (default): matching lines; files_with_matches: only the files with a match; count: matching lines per file",
      },
      context: {
        type: "integer",
        minimum: 0,
        maximum: GREP_MAX_CONTEXT,
        description: "Lines to show before and after each match (content mode), as `file-line- text`",
      },
    },
    required: ["pattern"],
    additionalProperties: false,
  } as const;
  return defineTool(inputSchema, {
    name: "grep",
    description:
      'Search file contents with a regular expression (RE2 syntax, as in ripgrep: no lookaround or backreferences; always linear time). Returns `file:line: text` lines (with `context` lines around them as `file-line- text`), or with output_mode the files with a match or a count per file. `path` is a folder or a file; `glob` filters files (e.g. "**/*.ts"). Binary files, files that .gitignore, .ignore and .rgignore files ignore, .git, node_modules and .keel are skipped (include_ignored: true searches them too).',
    ...pathToolTraits("read"),
    async execute(input, ctx) {
      // The search machinery loads on the first search: listing the tools loads none of it.
      const [{ compileLinePattern }, { findFiles }, { READ_TOOLS, reachableFiles }, { GitIgnores, ignoredHint, unappliedIgnoresNote }] = await Promise.all([
        import("./grep-pattern.js"),
        import("./find-files.js"),
        import("./reachable-files.js"),
        import("./git-ignores.js"),
      ]);
      const regex = await compileLinePattern(input.pattern, input.ignore_case === true);
      const target = confinePath(ctx.root, input.path ?? ".", "path", ctx.cwd);
      const st = await stat(target).catch(() => undefined);
      if (!st) throw new ToolError(`Path not found: ${input.path}. Use list_dir or glob to find it.`, "execution_failed");
      let files: string[];
      let skippedOutside = 0;
      let skippedDenied = 0;
      let deniedBy: string[] = [];
      let skippedIgnored = 0;
      /** Ignore files past the walk's pattern cap (GitIgnores.unapplied). */
      let unappliedIgnores = 0;
      /** Folders not walked: their names are not valid UTF-8. */
      const unwalked: string[] = [];
      if (st.isDirectory()) {
        const ignores = input.include_ignored ? undefined : GitIgnores.forWalk(ctx.root, ctx.host.env);
        // Only files whose real path is inside the boundary, and none a path deny rule hides.
        const walk = await reachableFiles(
          ctx.root,
          target,
          await findFiles(target, input.glob ?? "**/*", {
            root: ctx.root,
            signal: ctx.signal,
            includeIgnored: input.include_ignored,
            gitIgnored: ignores && ((abs: string, isDir: boolean) => ignores.ignored(abs, isDir)),
            onIgnored: () => skippedIgnored++,
            onUnwalkable: (f) => unwalked.push(displayPath(ctx.cwd, join(target, f))),
          }),
          ctx.host.permissions,
          READ_TOOLS,
          ctx.signal,
        );
        files = walk.files.map((f) => f.path);
        unappliedIgnores = ignores?.unapplied ?? 0;
        ({ skippedOutside, skippedDenied, deniedBy } = walk);
      } else {
        const rule = ctx.host.permissions.deniesPath(READ_TOOLS, relative(ctx.root, target) || ".");
        if (rule !== undefined)
          throw new ToolError(`${input.path} is denied by the rule "${rule}"; grep does not read it either.`, "permission_denied", null, {
            path: input.path,
            rule,
          });
        files = [target];
      }
      const max = input.max_results ?? GREP_DEFAULT_RESULTS;
      const mode = input.output_mode ?? "content";
      const output = new GrepOutput({ mode, context: input.context ?? 0, max, hide: ctx.host.resultSecrets.redactor()?.text });
      let skippedBinary = 0;
      /** Files that could not be opened (unreadable, gone), and how many of them have a name that is not valid UTF-8. */
      let skippedUnreadable = 0;
      let lossyNames = 0;
      let searched = 0;
      /** Lines longer than scanLines hands on: searched in their first MAX_LINE_CHARS characters only. */
      let cutLines = 0;
      let sliceStart = performance.now();
      for (let i = 0; i < files.length && !output.more; i++) {
        // Small files are opened and read without a promise per syscall (the same open and check: `readTextSync`);
        // other work gets the thread back every SLICE_MS.
        if (performance.now() - sliceStart > SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
        ctx.signal.throwIfAborted();
        const quick = readTextSync(ctx.root, files[i]!);
        const loaded: GrepRead = quick === NOT_SYNC ? await readText(ctx.root, files[i]!, ctx.signal) : quick;
        if (loaded === undefined) {
          skippedUnreadable++;
          if (lossyPath(files[i]!)) lossyNames++;
          continue;
        }
        if (loaded === OUTSIDE) {
          skippedOutside++;
          continue;
        }
        if (loaded === null) {
          skippedBinary++;
          continue;
        }
        const file = displayPath(ctx.cwd, files[i]!);
        const take = output.file(file, (line) => regex.test(line));
        // A UTF-8 byte order mark is no part of the first line's text (as in ripgrep): `^#!` still matches after one.
        const onLine = (text: string, lineNo: number): boolean => take(lineNo === 1 && text.startsWith("\ufeff") ? text.slice(1) : text, lineNo);
        if (typeof loaded === "object") {
          // A large file was handed over open, to stream.
          try {
            const scan = await scanLines(loaded, { signal: ctx.signal, nul: "head", onLine }).catch((error: unknown) => {
              if (ctx.signal.aborted) throw error;
              return undefined;
            });
            if (scan?.binary) skippedBinary++;
            else if (scan) searched++;
            cutLines += scan?.cutLines ?? 0;
          } finally {
            await loaded.close();
          }
        } else {
          searched++;
          const lines = loaded.split("\n");
          for (let n = 0; n < lines.length && onLine(lines[n]!, n + 1); n++);
        }
      }
      // A name with a newline (or a `:`, the field separator here) is quoted, so a match never reads as two or as another file's.
      const out = output.render();
      const more = output.more;
      if (output.empty) out.push(`No matches for /${input.pattern}/${input.ignore_case ? "i" : ""} in ${searched} file(s).${ignoredHint(skippedIgnored)}`);
      if (more) out.push(`[stopped at max_results=${max}; narrow the pattern, path or glob, or raise max_results]`);
      if (skippedDenied > 0) out.push(`[${skippedDenied} file(s) not searched: denied by ${deniedBy.map((r) => `"${r}"`).join(", ")}]`);
      if (cutLines > 0)
        out.push(
          `[${cutLines} line(s) longer than ${MAX_SCANNED_LINE_CHARS} characters were searched in their first ${MAX_SCANNED_LINE_CHARS} characters only]`,
        );
      if (skippedOutside > 0) out.push(`[${skippedOutside} file(s) not searched: they lead outside the workspace through a symlink]`);
      if (skippedUnreadable > 0)
        out.push(
          `[${skippedUnreadable} file(s) not searched: they could not be read${lossyNames > 0 ? `; ${lossyNames} of them because ${LOSSY_NAME_HINT}` : " (no read permission, or gone)"}]`,
        );
      const unwalkedNote = unwalkedFoldersNote(unwalked);
      if (unwalkedNote !== undefined) out.push(unwalkedNote);
      const unappliedNote = unappliedIgnoresNote(unappliedIgnores);
      if (unappliedNote !== undefined) out.push(unappliedNote);
      return {
        content: out.join("\n"),
        data: {
          matches: output.matches,
          // (a file's scan stops at its first match in files_with_matches mode: no count there)
          ...(mode === "content" ? {} : { files: mode === "count" ? output.files : output.files.map((f) => ({ file: f.file })) }),
          filesSearched: searched,
          skippedBinary,
          skippedDenied,
          skippedOutside,
          skippedUnreadable,
          skippedIgnored,
          skippedFolders: unwalked.length,
          unappliedIgnoreFiles: unappliedIgnores,
          cutLines,
          truncated: more,
        },
        metadata: { path: displayPath(ctx.cwd, target) },
      };
    },
  });
}
