/**
 * Characters that make a path unsafe to show bare on one line of a tool result: controls (a newline
 * would make one entry read as two), invisible format characters, line separators, characters drawn
 * as nothing, and U+FFFD (how a name that is not valid UTF-8 arrives).
 */
const UNCLEAR = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\ufffd]/u;
const UNCLEAR_ALL = new RegExp(UNCLEAR.source, "gu");

/**
 * A path as keel shows it on one line (file tools' results, diagnostics): as it is when it reads unambiguously, else
 * as a JSON string with every unclear character escaped (`"a\nb.txt"`, `"x\u202e.txt"`), which is
 * also the `path` to pass back. Quoted too: a path that starts with `"`, or starts or ends with
 * white space, or holds one of `alsoQuote` (grep quotes `:` paths, its own field separator). Never throws.
 */
export function shownPath(path: string, alsoQuote?: RegExp): string {
  const plain = !UNCLEAR.test(path) && !path.startsWith('"') && path.trim() === path && !(alsoQuote?.test(path) ?? false);
  if (plain) return path;
  // JSON escapes: a character beyond U+FFFF (a tag character) as its two UTF-16 halves.
  const escape = (c: string) => [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join("");
  return JSON.stringify(path).replace(UNCLEAR_ALL, escape);
}

/** True when `path` holds U+FFFD: a file whose name is not valid UTF-8 shows so, and cannot be opened by that name. */
export function lossyPath(path: string): boolean {
  return path.includes("\ufffd");
}

/** What to say about paths that hold U+FFFD (`lossyPath`): why keel's file tools cannot open them, and what to do. */
export const LOSSY_NAME_HINT =
  "a name that is not valid UTF-8 is shown with \\ufffd in place of its bad bytes, and keel's file tools cannot open it by that name; use bash to see it (`ls -b`) and rename it (e.g. `mv -- ./bad?.txt bad.txt`)";

/** What a "not found" message adds for a path the model copied from a listing: nothing, or why a name shown with U+FFFD cannot be opened. */
export function notFoundHint(path: string): string {
  return lossyPath(path) ? ` It holds \\ufffd: ${LOSSY_NAME_HINT}.` : "";
}

/** Most folder names `unwalkedFoldersNote` lists. */
const MAX_UNWALKED_SHOWN = 5;

/**
 * The note glob and grep add when folders could not be walked because their names are not valid UTF-8: how many, the first
 * few (as `shownPath` shows them), and what to do; undefined when there are none.
 */
export function unwalkedFoldersNote(folders: readonly string[]): string | undefined {
  if (folders.length === 0) return undefined;
  const shown = [...folders]
    .sort()
    .slice(0, MAX_UNWALKED_SHOWN)
    .map((f) => shownPath(f));
  const more = folders.length > shown.length ? `, and ${folders.length - shown.length} more` : "";
  return `[${folders.length} folder(s) not searched: ${shown.join(", ")}${more}: a folder name that is not valid UTF-8 is shown with \\ufffd in place of its bad bytes, and keel cannot open it by that name, so nothing in it was searched; use bash to see it (\`ls -b\`) and rename it (e.g. \`mv -- ./bad?dir baddir\`)]`;
}
