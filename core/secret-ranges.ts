/** A stretch `[start, end)` of a text to hide. */
export type Range = readonly [start: number, end: number];

/**
 * `text` with each stretch in `ranges` replaced by `mark`; stretches that overlap are merged into one (a secret that
 * contains another is hidden whole), stretches that only touch stay two. Never throws.
 */
export function hideRanges(text: string, ranges: Range[], mark: string): string {
  if (!ranges.length) return text;
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let out = "";
  let kept = 0;
  let start = ranges[0]![0];
  let end = ranges[0]![1];
  for (const [s, e] of ranges) {
    if (s < end) {
      if (e > end) end = e;
      continue;
    }
    out += text.slice(kept, start) + mark;
    kept = end;
    start = s;
    end = e;
  }
  return out + text.slice(kept, start) + mark + text.slice(end);
}

/**
 * A text made of pieces of another (a view of it), with where each piece came from, so that a stretch found in the
 * view is mapped back to the stretch of the original it spans. Pieces are added in order.
 */
export class PieceMap {
  private readonly at: number[] = [];
  private readonly size: number[] = [];
  private readonly from: number[] = [];
  private readonly span: number[] = [];

  /**
   * Records that the view's `size` characters from `viewAt` stand for the original's `span` characters from
   * `originalAt`: the same characters when `size === span`, else a group read as a whole (the hex digits of a byte).
   */
  add(viewAt: number, size: number, originalAt: number, span: number): void {
    this.at.push(viewAt);
    this.size.push(size);
    this.from.push(originalAt);
    this.span.push(span);
  }

  /** The original stretch from the first to the last character of the view's `[start, end)` (non-empty). */
  place(start: number, end: number): Range {
    const first = this.piece(start);
    const last = this.piece(end - 1);
    const same = (p: number) => this.size[p] === this.span[p];
    const from = same(first) ? this.from[first]! + start - this.at[first]! : this.from[first]!;
    const to = same(last) ? this.from[last]! + end - this.at[last]! : this.from[last]! + this.span[last]!;
    return [from, to];
  }

  private piece(i: number): number {
    let lo = 0;
    let hi = this.at.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.at[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
