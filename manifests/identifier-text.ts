/**
 * Characters a name may not hold: controls (C0 with tab and newline, DEL, C1), format characters
 * (zero-width, bidi embeddings, overrides and isolates, Unicode tag characters, BOM, soft hyphen),
 * lone surrogates, line and paragraph separators, and every other character drawn as nothing
 * (Default_Ignorable_Code_Point: variation selectors, the combining grapheme joiner, Hangul fillers).
 * Letters of any script, digits, punctuation, symbols and spaces are all allowed.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

/**
 * Why `name` (a plugin, tool, alias, MCP server, workflow, agent type, skill or command name from a
 * file) cannot be used: it holds a character a terminal or a model's tool menu does not show as it is,
 * so one name could pass for another. Undefined when every character is visible. Never throws.
 */
export function hiddenCharacterProblem(name: string): string | undefined {
  const c = HIDDEN.exec(name)?.[0];
  if (c === undefined) return undefined;
  const code = c.codePointAt(0)!;
  const kind = /\p{Cc}/u.test(c) ? "a control character" : /[\p{Zl}\p{Zp}]/u.test(c) ? "a line or paragraph separator" : "an invisible character";
  const shown = code > 0xffff ? `U+${code.toString(16).toUpperCase()}` : `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  return `holds ${kind} (${shown}) at position ${[...name.slice(0, name.indexOf(c))].length + 1}, which is not shown as it is; use visible characters only`;
}
