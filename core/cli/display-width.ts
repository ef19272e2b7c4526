/** Characters a terminal draws in no cell: combining marks, invisible format characters, and others Unicode draws as nothing. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\p{Default_Ignorable_Code_Point}]$/u;
/** East Asian wide and fullwidth characters (CJK, Hangul, fullwidth forms) and emoji, which a terminal draws in two cells. */
const WIDE =
  /^[\u1100-\u115f\u231a\u231b\u2329\u232a\u23e9-\u23ec\u23f0\u23f3\u25fd\u25fe\u2614\u2615\u2648-\u2653\u267f\u2693\u26a1\u26aa\u26ab\u26bd\u26be\u26c4\u26c5\u26ce\u26d4\u26ea\u26f2\u26f3\u26f5\u26fa\u26fd\u2705\u270a\u270b\u2728\u274c\u274e\u2753-\u2755\u2757\u2795-\u2797\u27b0\u27bf\u2b1b\u2b1c\u2b50\u2b55\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{16fe0}-\u{18cff}\u{1b000}-\u{1b2ff}\u{1f004}\u{1f0cf}\u{1f18e}\u{1f191}-\u{1f19a}\u{1f200}-\u{1f251}\u{1f300}-\u{1f64f}\u{1f680}-\u{1f6ff}\u{1f7e0}-\u{1f7eb}\u{1f90c}-\u{1f9ff}\u{1fa70}-\u{1faff}\u{20000}-\u{3fffd}]$/u;

/** Cells one character (code point) takes on a terminal: 0, 1 or 2. */
function charWidth(c: string): number {
  if (ZERO_WIDTH.test(c)) return 0;
  return WIDE.test(c) ? 2 : 1;
}

/**
 * Cells `text` takes on a terminal (one line, as printed: measure text after escaping it, e.g. with
 * `terminalText`, since an escaped control character takes the cells of its escape). Never throws.
 */
export function displayWidth(text: string): number {
  let cells = 0;
  for (const c of text) cells += charWidth(c);
  return cells;
}

/** `text` cut to at most `cells` cells (whole characters), ending in "…" when cut. */
export function cutToWidth(text: string, cells: number): string {
  if (displayWidth(text) <= cells) return text;
  let out = "";
  let used = 0;
  for (const c of text) {
    const w = charWidth(c);
    if (used + w > cells - 1) break;
    out += c;
    used += w;
  }
  return out + "…";
}

/** `text` followed by spaces up to `cells` cells. */
export function padToWidth(text: string, cells: number): string {
  return text + " ".repeat(Math.max(0, cells - displayWidth(text)));
}
