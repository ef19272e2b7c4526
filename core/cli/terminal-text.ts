/**
 * C0 controls except tab and newline, DEL, C1 controls (U+0080–U+009F, e.g. the one-byte CSI U+009B),
 * and the bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) that make a line read in another order.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/**
 * Every control character (newline and tab too), every invisible format character (zero-width, bidi, tag characters, BOM, soft hyphen),
 * the line and paragraph separators, and every other character Unicode says to draw as nothing (Default_Ignorable_Code_Point: the
 * combining grapheme joiner U+034F, variation selectors, Hangul fillers), which would otherwise split a run of blanks unseen.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;
/** More than 8 blanks in a row (any blank: no-break, em and ideographic spaces, braille and Hangul fillers). */
const BLANK_RUN = /[\p{Zs}\u2800\u115f\u1160\u3164\uffa0]{9,}/gu;

/**
 * Text made safe to print to a terminal: every control character other than newline and tab —
 * ESC starting an ANSI sequence, a bare carriage return, backspace, BEL, C1 controls — and every
 * bidi override is shown as a visible `\u001b`-style escape instead of being interpreted. Text from
 * MCP servers, tools and models can otherwise rewrite the screen, hide lines or spoof keel's own output.
 */
export function terminalText(text: string): string {
  return text.replace(CONTROL, escape);
}

/**
 * Text a user decides on (an approval prompt, a trust review, a paused call), shown exactly on one
 * line: on top of `terminalText`, a newline, tab, zero-width or other invisible character is shown
 * as an escape, and a run of more than 8 blanks as ` [N spaces] `, so nothing can hide below a
 * harmless first line, screens away to the right of a harmless start, or between visible letters.
 */
export function exactText(text: string): string {
  // Runs first: the blank fillers among them are drawn as nothing too, and counted as blanks.
  return text.replace(BLANK_RUN, (run) => ` [${[...run].length} spaces] `).replace(HIDDEN, (c) => (c === "\n" ? "\\n" : c === "\t" ? "\\t" : escape(c)));
}

function escape(c: string): string {
  const code = c.codePointAt(0)!;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
}
