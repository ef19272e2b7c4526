/** Renders rows as an aligned text table with a header. Cells are cut at `maxWidth`. */
export function table(headers: string[], rows: string[][], maxWidth = 60): string {
  const cut = (s: string) => (s.length > maxWidth ? s.slice(0, maxWidth - 1) + "…" : s);
  const all = [headers, ...rows.map((r) => r.map((c) => cut(String(c ?? "").replace(/\s+/g, " "))))];
  const widths = headers.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  return all
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : (c ?? "").padEnd(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** First line of a description, trimmed. */
export function firstLine(text: string): string {
  return (text ?? "").split("\n")[0]!.trim();
}
