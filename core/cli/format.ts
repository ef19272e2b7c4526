import { cutToWidth, displayWidth, padToWidth } from "./display-width.js";
import { terminalText } from "./terminal-text.js";

/**
 * Renders rows as an aligned text table with a header. Each cell is shown as printed — its control
 * characters escaped (`terminalText`) — and measured in terminal cells after that (`displayWidth`),
 * so text from a repository or a server (a title with an ANSI sequence, wide characters) cannot
 * shift the columns. Cells are cut at `maxWidth` cells.
 */
export function table(headers: string[], rows: string[][], maxWidth = 60): string {
  const cell = (s: string) => cutToWidth(terminalText(String(s ?? "").replace(/\s+/g, " ")), maxWidth);
  const all = [headers, ...rows].map((r) => r.map(cell));
  const widths = headers.map((_, i) => Math.max(...all.map((r) => displayWidth(r[i] ?? ""))));
  return all
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : padToWidth(c ?? "", widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** First line of a description, trimmed. */
export function firstLine(text: string): string {
  return (text ?? "").split("\n")[0]!.trim();
}
