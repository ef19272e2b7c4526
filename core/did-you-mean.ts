/** Levenshtein distance between two strings (meant for short names: O(a·b)). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The candidates `name` most likely means, best first (at most `limit`): the same name in another
 * case, names it is a prefix of (a session id's first characters), names within a small edit
 * distance (a third of its length, at most 3), then names that contain it or that it contains.
 * Case-insensitive; never throws; empty when nothing is close.
 */
export function suggestNames(name: string, candidates: Iterable<string>, limit = 3): string[] {
  const wanted = name.toLowerCase();
  if (!wanted) return [];
  const maxDistance = Math.min(3, Math.max(1, Math.floor(wanted.length / 3)));
  const scored: { name: string; score: number }[] = [];
  for (const candidate of new Set(candidates)) {
    const lower = candidate.toLowerCase();
    let score: number | undefined;
    if (lower === wanted) score = 0;
    else if (lower.startsWith(wanted)) score = 1;
    else {
      const d = editDistance(wanted, lower);
      if (d <= maxDistance) score = 1 + d;
      else if (wanted.length >= 3 && (lower.includes(wanted) || wanted.includes(lower))) score = 10;
    }
    if (score !== undefined) scored.push({ name: candidate, score });
  }
  return scored
    .sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, limit)
    .map((s) => s.name);
}

/** A sentence to append to an "unknown NAME" message (` Did you mean "x"?`), or "" when nothing is close. */
export function didYouMean(name: string, candidates: Iterable<string>, limit = 3): string {
  const close = suggestNames(name, candidates, limit);
  if (!close.length) return "";
  return ` Did you mean ${close.map((c) => `"${c}"`).join(" or ")}?`;
}
