/** TEMPORARY passthrough until the Claude rule translator lands. */
export function translatePermissionRules(raw: unknown[], _list: string): { rules: string[]; warnings: { index: number; message: string }[] } {
  return { rules: raw.filter((r): r is string => typeof r === "string"), warnings: [] };
}
