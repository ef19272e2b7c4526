import { isDeepStrictEqual } from "node:util";

/**
 * The text of a JSON config file after setting the value at `path` to `value`, changing only what that
 * takes: the rest of the file keeps its bytes — indentation (tabs or spaces, as found), key order, line
 * endings, the final newline — so `keel config set` in a `package.json` does not reformat it. `intended` is
 * the whole document as it must parse afterwards; when the edit would not give exactly that (duplicate
 * keys, numbers JSON cannot hold exactly), the whole document is written as `JSON.stringify` prints it,
 * in the file's indentation.
 */
export async function jsonTextWithValue(text: string, path: string[], value: unknown, intended: unknown): Promise<string> {
  const { applyEdits, modify } = await import("jsonc-parser");
  const indent = indentationOf(text);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const formattingOptions = { insertSpaces: indent !== "\t", tabSize: indent === "\t" ? 1 : indent.length, eol };
  try {
    const edited = applyEdits(text, modify(text, segments(text, path), value, { formattingOptions }));
    if (isDeepStrictEqual(JSON.parse(edited), intended)) return edited;
  } catch {
    // written whole below
  }
  const whole = JSON.stringify(intended, null, indent).replace(/\n/g, eol);
  return whole + (/\r?\n$/.test(text) || text === "" ? eol : "");
}

/** The first indentation of the file (a tab, or 1–8 spaces); two spaces when it has none. */
function indentationOf(text: string): string {
  const found = /^(\t| {1,8})\S/m.exec(text);
  return found ? found[1]! : "  ";
}

/** `path` with the keys that index arrays of the current document as numbers (as jsonc-parser reads paths). */
function segments(text: string, path: string[]): (string | number)[] {
  let at: unknown = JSON.parse(text);
  return path.map((key) => {
    const index = Array.isArray(at) && /^(0|[1-9]\d*)$/.test(key) ? Number(key) : key;
    at = at !== null && typeof at === "object" ? (at as Record<string | number, unknown>)[index] : undefined;
    return index;
  });
}
