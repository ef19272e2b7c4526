import type { Range } from "./secret-ranges.js";

/** Bits in the filter that rules out most positions before a lookup (a 32 KiB table). */
const FILTER_BITS = 1 << 18;

/** Up to this many strings are searched for one by one (`indexOf`, faster than a hashing pass for a few). */
const ONE_BY_ONE = 24;

/** The base of the rolling hash (odd, so multiplying by it modulo 2^32 loses nothing). */
const BASE = 0x01000193;

/**
 * Many strings found in a text in one pass, whatever their number (up to ONE_BY_ONE, one `indexOf` pass each): a
 * rolling hash of the `width` characters at each position (`width` is the shortest string's length, at most 32) is
 * looked up among the hashes of the strings' first `width` characters, and only there is a string compared. Time is
 * linear in the text plus the length of the strings that match there (a hostile text cannot make it more without
 * knowing the strings: they are secrets). One instance per set of strings; it holds no state between searches.
 */
export class FormIndex {
  private readonly width: number;
  private readonly shift: number;
  private readonly forms: string[];
  private readonly buckets = new Map<number, string[]>();
  /** Only for more than ONE_BY_ONE strings. */
  private readonly filter: Uint32Array | undefined;

  /** `forms`: non-empty strings to find. */
  constructor(forms: readonly string[]) {
    this.forms = [...new Set(forms)].filter((f) => f.length > 0);
    this.width = Math.min(32, ...this.forms.map((f) => f.length));
    let shift = 1;
    for (let i = 1; i < this.width; i++) shift = Math.imul(shift, BASE);
    this.shift = shift;
    if (this.forms.length <= ONE_BY_ONE) return;
    this.filter = new Uint32Array(FILTER_BITS / 32);
    for (const form of this.forms) {
      const h = hashOf(form, this.width);
      const bucket = this.buckets.get(h);
      if (bucket) bucket.push(form);
      else this.buckets.set(h, [form]);
      const bit = slot(h);
      this.filter[bit >>> 5]! |= 1 << (bit & 31);
    }
  }

  /** True when there is nothing to find. */
  get empty(): boolean {
    return this.forms.length === 0;
  }

  /**
   * Pushes onto `out` each stretch of `text` where one of the strings occurs (or at least one of overlapping ones), passed through
   * `place` when given (a view's positions mapped back to the original's).
   */
  find(text: string, out: Range[], place?: (start: number, end: number) => Range): void {
    const found = (at: number, form: string) => out.push(place ? place(at, at + form.length) : [at, at + form.length]);
    const { width, shift, filter, buckets } = this;
    if (!filter) {
      for (const form of this.forms) for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + form.length)) found(at, form);
      return;
    }
    if (text.length < width) return;
    let h = hashOf(text, width);
    for (let at = 0; ; at++) {
      const bit = slot(h);
      if (filter[bit >>> 5]! & (1 << (bit & 31))) {
        for (const form of buckets.get(h) ?? []) if (text.startsWith(form, at)) found(at, form);
      }
      if (at + width >= text.length) return;
      h = (Math.imul(h - Math.imul(text.charCodeAt(at), shift), BASE) + text.charCodeAt(at + width)) | 0;
    }
  }
}

function hashOf(text: string, width: number): number {
  let h = 0;
  for (let i = 0; i < width; i++) h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
  return h;
}

function slot(h: number): number {
  return (h ^ (h >>> 14)) & (FILTER_BITS - 1);
}
