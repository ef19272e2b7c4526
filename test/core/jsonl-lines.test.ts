import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LineSplitter, logLines, type LogItem } from "../../core/jsonl-lines.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function logFile(text: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), "keel-lines-"));
  dirs.push(dir);
  const file = join(dir, "events.jsonl");
  writeFileSync(file, text);
  return file;
}

/** What a reader saw, comparable across directions: the line's text, or its length when skipped. */
const seen = (items: LogItem[]) => items.map((i) => ("skipped" in i ? { offset: i.offset, skipped: i.bytes } : { offset: i.offset, text: i.line.toString() }));

/** Lines of lengths around the 1 MiB chunk the readers read (some across its boundaries, some over `max`). */
function lines(seed: number, max: number): string[] {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31);
  const out: string[] = [];
  for (let total = 0; total < 3.5 * 2 ** 20;) {
    const kind = next() % 10;
    const length = kind === 0 ? max + (next() % 1000) : kind === 1 ? max : kind === 2 ? 0 : next() % 5000;
    const text = String.fromCharCode(97 + (out.length % 26)).repeat(length);
    out.push(text);
    total += length + 1;
  }
  return out;
}

describe("log lines read with bounded memory", () => {
  for (const [seed, torn] of [
    [1, false],
    [2, true],
    [3, false],
  ] as const) {
    it(`forwards and backwards, every line is handed on with its offset; lines over the limit are skipped (seed ${seed}${torn ? ", torn last line" : ""})`, () => {
      const max = 300_000;
      const all = lines(seed, max);
      const text = all.join("\n") + (torn ? "" : "\n");
      const file = logFile(Buffer.from(text));
      const want: ReturnType<typeof seen> = [];
      let offset = 0;
      for (const [i, l] of all.entries()) {
        if (i === all.length - 1 && torn) want.push(l.length > max ? { offset, skipped: l.length } : { offset, text: l });
        else want.push(l.length > max ? { offset, skipped: l.length } : { offset, text: l });
        offset += l.length + 1;
      }
      expect(seen([...logLines(file, { maxLineBytes: max, torn: true })])).toEqual(want);
      // backwards: the same lines, last first (after the final newline: an empty one)
      const back = seen([...logLines(file, { maxLineBytes: max, backward: true })]).reverse();
      expect(back).toEqual(torn ? want : [...want, { offset: text.length, text: "" }]);
      // not torn: a last line without a newline is left for a later read
      const whole = [...logLines(file, { maxLineBytes: max })];
      expect(seen(whole)).toEqual(torn ? want.slice(0, -1) : want);
    });
  }

  it("a skipped line keeps its first bytes (to tell what it claims to be); a line split across reads is whole", () => {
    const splitter = new LineSplitter(10, 100);
    const got: LogItem[] = [];
    splitter.push(Buffer.from('{"type":"sess'), (i) => got.push(i));
    splitter.push(Buffer.from('ion_message"}\nshort\n{"a"'), (i) => got.push(i));
    splitter.push(Buffer.from(":1}\n"), (i) => got.push(i));
    expect(got.map((i) => ("skipped" in i ? `skipped ${i.offset} ${i.bytes} ${i.head.toString()}` : `${i.offset} ${i.line.toString()}`))).toEqual([
      'skipped 100 26 {"type":"session_message"}',
      "127 short",
      '133 {"a":1}',
    ]);
    expect(splitter.pending).toBe(141);
  });
});
