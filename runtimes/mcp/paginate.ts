/** Follows `nextCursor` to the end (at most `maxPages` pages; a repeated cursor stops). */
export async function paginate<T>(fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>, maxPages = 1000): Promise<T[]> {
  const out: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const r = await fetchPage(cursor);
    out.push(...r.items);
    if (!r.nextCursor || seen.has(r.nextCursor)) break;
    seen.add(r.nextCursor);
    cursor = r.nextCursor;
  }
  return out;
}
