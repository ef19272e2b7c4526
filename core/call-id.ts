import { randomBytes } from "./lazy-crypto.js";

/**
 * Call ids for one host: `call_<ms since epoch, base 36><6 random hex chars><sequence, base 36>`.
 * Time-ordered and unique across processes (the random part is drawn once per source), and cheap
 * enough for the hot path (no UUID per call). The random part is drawn with the first id: a host
 * that makes no call draws none.
 */
export class CallIdSource {
  private salt?: string;
  private seq = 0;
  /** `call_<ms>` for the last millisecond seen, and that millisecond. */
  private prefix = "";
  private ms = -1;

  /** A fresh id, never returned before by this source. */
  next(): string {
    const now = Date.now();
    if (now !== this.ms) {
      this.ms = now;
      this.salt ??= randomBytes(3).toString("hex");
      this.prefix = `call_${now.toString(36)}${this.salt}`;
    }
    return this.prefix + (this.seq++).toString(36);
  }
}
