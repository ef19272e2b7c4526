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
 * Longest name compared for suggestions or quoted whole in an "unknown NAME" message: 128 characters, the
 * longest tool name MCP allows, far above any name keel registers or users type. The name compared
 * often comes from a model, a server or a workspace file and may be any length (edit distance is O(a·b)).
 */
export const MAX_COMPARED_NAME = 128;

/** `name` in quotes for a message, cut to MAX_COMPARED_NAME characters with its length said when longer. */
export function quotedName(name: string): string {
  return name.length > MAX_COMPARED_NAME ? `"${name.slice(0, MAX_COMPARED_NAME)}…" (${name.length} characters)` : `"${name}"`;
}

/**
 * The candidates `name` most likely means, best first (at most `limit`): the same name in another
 * case, names it is a prefix of (a session id's first characters), names within a small edit
 * distance (a third of its length, at most 3), then names that contain it or that it contains.
 * Case-insensitive; never throws; empty when nothing is close. A name longer than MAX_COMPARED_NAME
 * is no name's misspelling: it gets no suggestion and nothing is compared; a candidate that long is
 * skipped (so the work is at most 128·128 steps per candidate).
 */
export function suggestNames(name: string, candidates: Iterable<string>, limit = 3): string[] {
  const wanted = name.toLowerCase();
  if (!wanted || wanted.length > MAX_COMPARED_NAME) return [];
  const maxDistance = Math.min(3, Math.max(1, Math.floor(wanted.length / 3)));
  const scored: { name: string; score: number }[] = [];
  for (const candidate of new Set(candidates)) {
    if (candidate.length > MAX_COMPARED_NAME) continue;
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
