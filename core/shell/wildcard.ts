/**
 * A compiled `*` wildcard pattern (`*` = any text, everything else literal), matched in linear time:
 * the pattern is split at its stars into literal segments, the first anchored at the start, the
 * last at the end, and the ones between found left to right with `indexOf` — taking the leftmost
 * occurrence of each segment is always right for star-only patterns, so there is no backtracking
 * and no regular expression (a rule like `*a *b *c *` against a 3,000-word command stays cheap).
 */
export class Wildcard {
  private readonly segments: string[];

  constructor(readonly pattern: string) {
    this.segments = pattern.split("*");
  }

  /** True when the whole of `text` matches. */
  test(text: string): boolean {
    return this.stars(text) !== undefined;
  }

  /** The texts the stars take when the whole of `text` matches (leftmost, as `test` finds them), else undefined. */
  stars(text: string): string[] | undefined {
    const segs = this.segments;
    if (segs.length === 1) return text === segs[0] ? [] : undefined;
    const head = segs[0]!;
    const tail = segs[segs.length - 1]!;
    if (text.length < head.length + tail.length || !text.startsWith(head) || !text.endsWith(tail)) return undefined;
    const out: string[] = [];
    let at = head.length;
    const limit = text.length - tail.length;
    for (let i = 1; i < segs.length - 1; i++) {
      const seg = segs[i]!;
      const found = seg === "" ? at : text.indexOf(seg, at);
      if (found === -1 || found + seg.length > limit) return undefined;
      out.push(text.slice(at, found));
      at = found + seg.length;
    }
    out.push(text.slice(at, limit));
    return out;
  }
}
