import { createRequire } from "node:module";
import type * as JsoncParser from "jsonc-parser";

/** Loads jsonc-parser synchronously, only when a JSON text failed to parse (a function, not state: Node caches what it loads). */
const load = createRequire(import.meta.url);

/**
 * The error `JSON.parse` threw for `text`, as one line that names where the text breaks:
 * `Unexpected token 'b' in JSON (line 3, column 13)`. Node 20's message often has no position
 * (`Unexpected token 'b', "…ld": bad }" is not valid JSON`) and embeds a piece of the text, which can hold
 * newlines and terminal escapes; that piece is dropped, any other invisible character is escaped, and the place is
 * found by jsonc-parser in strict mode (no comments, no trailing commas: what `JSON.parse` refuses), loaded only here.
 * Lines and columns count from 1 in `text` as given (the caller strips a byte order mark first). Returns a SyntaxError
 * whose `cause` is the original; any other error (not a SyntaxError) is returned as it is.
 */
export function jsonSyntaxError(text: string, error: unknown): unknown {
  if (!(error instanceof SyntaxError)) return error;
  let message = error.message;
  // V8's forms: `Unexpected token 'X', "<text>" is not valid JSON` (the text cut with `...` when long), `… in JSON at position N` (newer: `… (line L column C)`).
  const token = /^Unexpected token '([^]*?)', [^]* is not valid JSON$/.exec(message);
  if (token) message = `Unexpected token '${token[1]}' in JSON`;
  const position = / at position (\d+)(?: \(line \d+ column \d+\))?/.exec(message);
  if (position) message = message.slice(0, position.index) + message.slice(position.index + position[0].length);
  const offset = position ? Number(position[1]) : errorOffset(text, token?.[1]);
  return new SyntaxError(`${escapeInvisible(message)} (${lineAndColumn(text, offset)})`, { cause: error });
}

/** Where jsonc-parser (strict) finds the first error in `text`; at the named token when `JSON.parse` named one; else the end of the text. */
function errorOffset(text: string, token: string | undefined): number {
  const errors: JsoncParser.ParseError[] = [];
  try {
    const { parse } = load("jsonc-parser") as typeof JsoncParser;
    parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  } catch {
    // jsonc-parser recurses: a text nested past the stack has no place found; the end of the text is reported
  }
  const first = errors[0];
  if (first === undefined) return text.length;
  // jsonc-parser marks the token that starts the error (`tru` in `{"a": tru}`); V8 names the character it stopped at (`}`).
  const at = token === undefined || token === "" ? -1 : text.indexOf(token, first.offset);
  return at >= 0 && at <= first.offset + first.length ? at : first.offset;
}

/** `line L, column C` of `offset` in `text`, both from 1; a line ends at `\n`, `\r\n` or `\r`. */
function lineAndColumn(text: string, offset: number): string {
  const lines = text.slice(0, offset).split(/\r\n|\r|\n/);
  return `line ${lines.length}, column ${lines[lines.length - 1]!.length + 1}`;
}

/** `text` with control, line-separator, bidirectional and other invisible format characters as `\uXXXX` escapes, so it stays one line. */
function escapeInvisible(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => {
    const code = c.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
