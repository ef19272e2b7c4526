import { execa } from "execa";
import { appendFileSync, closeSync, openSync, readSync, statSync, truncateSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { KEEL_BIN, runKeel, runKeelProcess } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// A repository can commit a session's events.jsonl of any size (or write one over yours with git pull):
// the commands that read it must stream it with bounded memory. Each run here is a real keel process
// with a 64 MB heap, in which reading such a log whole fails.

const made: TempWorkspace[] = [];
afterEach(() => {
  for (const w of made.splice(0)) w.cleanup();
});

const SMALL_HEAP = { NODE_OPTIONS: "--max-old-space-size=64" };
const LOG = ".keel/sessions/big/events.jsonl";

/** A workspace with a session `big` that keel ran (its log: a few events, then whatever `grow` appends). */
async function sessionWithLog(grow: (file: string) => void): Promise<TempWorkspace> {
  const w = makeWorkspace({ "s.json": [{ text: "hello" }] }, { git: true, under: "/var/tmp" });
  made.push(w);
  const r = await runKeel(["run", "--model", "scripted:s.json", "--session", "big", "hi"], { cwd: w.root, env: w.env });
  expect(r.exitCode, r.stderr).toBe(0);
  grow(w.path(LOG));
  return w;
}

const line = (type: string, extra: object = {}) => JSON.stringify({ ts: 1_700_000_000_000, type, sessionId: "big", ...extra }) + "\n";

/** Appends events of about 1 KiB each until the log holds `bytes`, then a `last_event`. */
function appendEvents(file: string, bytes: number): number {
  const block = line("tool_output", { text: "x".repeat(1000) }).repeat(8192);
  let count = 0;
  while (statSync(file).size < bytes) {
    appendFileSync(file, block);
    count += 8192;
  }
  appendFileSync(file, line("last_event"));
  return count + 1;
}

const keel = (w: TempWorkspace, ...args: string[]) => runKeelProcess(args, { cwd: w.root, env: { ...w.env, ...SMALL_HEAP } });

/** The last line of a file, read from its end. */
function lastLine(file: string): string {
  const size = statSync(file).size;
  const buf = Buffer.alloc(Math.min(size, 64 * 1024));
  const fd = openSync(file, "r");
  readSync(fd, buf, 0, buf.length, size - buf.length);
  closeSync(fd);
  return buf.toString("utf8").trimEnd().split("\n").pop()!;
}

describe("keel sessions events and show on a huge session log (real processes, 64 MB heap)", () => {
  it("--tail N and --limit N read a 300 MB log from its ends", async () => {
    const w = await sessionWithLog((file) => appendEvents(file, 300 * 2 ** 20));
    const tail = await keel(w, "sessions", "events", "big", "--tail", "2");
    expect(tail.exitCode, tail.stderr).toBe(0);
    const shown = tail.stdout.split("\n");
    expect(shown).toHaveLength(2);
    expect(shown[0]).toMatch(/ tool_output +\{"text":"x{1000}"\}$/);
    expect(shown[1]).toMatch(/ last_event +\{\}$/);
    const first = await keel(w, "--json", "sessions", "events", "big", "--limit", "1");
    expect(first.exitCode, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ type: "session_start", sessionId: "big" });
    // one of them, not both; --limit stops, --follow does not
    expect((await keel(w, "sessions", "events", "big", "--tail", "1", "--limit", "1")).exitCode).toBe(2);
    expect((await keel(w, "sessions", "events", "big", "--limit", "1", "--follow")).exitCode).toBe(2);
  });

  it("--tail N with N in the hundreds of thousands prints them in order, in time linear in N", async () => {
    // Each event read from the end was put at the front of the list, moving all the others: 200,000 took 23 s, and
    // 600,000 minutes (a safety net: no wall-clock assertion; the test's timeout stops the old code).
    const n = 600_000;
    const w = await sessionWithLog((file) => appendFileSync(file, Array.from({ length: n }, (_, i) => `{"type":"e","i":${i}}\n`).join("")));
    const tail = await runKeelProcess(["--json", "sessions", "events", "big", "--tail", String(n)], { cwd: w.root, env: w.env });
    expect(tail.exitCode, tail.stderr).toBe(0);
    const shown = tail.stdout.trimEnd().split("\n");
    expect(shown).toHaveLength(n);
    expect(JSON.parse(shown[0]!)).toEqual({ type: "e", i: 0 });
    expect(JSON.parse(shown[n - 1]!)).toEqual({ type: "e", i: n - 1 });
    expect(shown.every((l, i) => l === `{"type":"e","i":${i}}`)).toBe(true);
  });

  it("prints a 300 MB log whole, streamed: --json stays one JSON event per line", async () => {
    const w = await sessionWithLog((file) => appendEvents(file, 300 * 2 ** 20));
    const out = w.path("events.out");
    const r = await execa(process.execPath, [KEEL_BIN, "--json", "sessions", "events", "big"], {
      cwd: w.root,
      env: { ...w.env, ...SMALL_HEAP },
      extendEnv: false,
      stdin: "ignore",
      stdout: { file: out },
      buffer: false, // execa would stop at its maxBuffer (100 MB) of output
      reject: false,
      timeout: 300_000,
    });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(JSON.parse(lastLine(out))).toMatchObject({ type: "last_event" });
    // every event of the log, one line each
    const lines = (file: string) => {
      const fd = openSync(file, "r");
      const buf = Buffer.alloc(2 ** 20);
      let n = 0;
      for (let at = 0; ;) {
        const got = readSync(fd, buf, 0, buf.length, at);
        if (got === 0) break;
        for (let i = 0; i < got; i++) if (buf[i] === 0x0a) n++;
        at += got;
      }
      closeSync(fd);
      return n;
    };
    expect(lines(out)).toBe(lines(w.path(LOG)));
  });

  it("a line of 200 MB is skipped and reported with its byte offset; the events around it print, and show reads the session", async () => {
    let offset = 0;
    const huge = `{"ts":1,"type":"tool_output","text":"${"y".repeat(200 * 2 ** 20)}"}`;
    const w = await sessionWithLog((file) => {
      offset = statSync(file).size;
      appendFileSync(file, `${huge}\n`);
      appendFileSync(file, line("after_huge"));
    });
    const r = await keel(w, "sessions", "events", "big");
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/ session_start /);
    expect(r.stdout.trimEnd().split("\n").pop()).toMatch(/ after_huge +\{\}$/);
    expect(r.stderr).toContain(`skipped the line at byte ${offset} of ${w.path(LOG)}: ${huge.length} bytes, more than keel reads of one event (64 MiB)`);
    const tail = await keel(w, "sessions", "events", "big", "--tail", "1");
    expect(tail.stdout).toMatch(/ after_huge +\{\}$/);
    // show replays the log after the checkpoint: the session's own entries, the huge line passed over
    const show = await keel(w, "sessions", "show", "big");
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain("last answer:\n  hello");
  });

  it("a 2 GB (sparse) log prints what it holds and reports the rest skipped; --tail reads only its end", async () => {
    let offset = 0;
    const w = await sessionWithLog((file) => {
      offset = statSync(file).size;
      truncateSync(file, 2 * 2 ** 30);
      appendFileSync(file, "\n" + line("after_sparse"));
    });
    const r = await keel(w, "sessions", "events", "big");
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/ session_start /);
    expect(r.stdout.trimEnd().split("\n").pop()).toMatch(/ after_sparse +\{\}$/);
    expect(r.stderr).toContain(`skipped the line at byte ${offset} of`);
    expect(r.stderr).toContain(`: ${2 * 2 ** 30 - offset} bytes`);
    const tail = await keel(w, "--json", "sessions", "events", "big", "--tail", "1");
    expect(tail.exitCode, tail.stderr).toBe(0);
    expect(JSON.parse(tail.stdout)).toMatchObject({ type: "after_sparse" });
    expect(tail.stderr).toBe("");
  });

  it("a huge status.json or state.json is refused, not read whole: list says why (from state.json while it can), show says why", async () => {
    const w = await sessionWithLog(() => {});
    const dir = ".keel/sessions/big";
    truncateSync(w.path(`${dir}/status.json`), 300 * 2 ** 20);
    // status.json (keel writes it small) is not read; the row comes from the state.json checkpoint, with a note.
    const list = await keel(w, "--json", "sessions", "list");
    expect(list.exitCode, list.stderr).toBe(0);
    const fromState = list.json().sessions;
    expect(fromState).toEqual([expect.objectContaining({ id: "big", status: "idle", title: "hi" })]);
    expect(fromState[0].note).toContain(`${w.path(`${dir}/status.json`)}: it holds 300 MiB, more than keel reads of a state file (64 MiB)`);
    expect(fromState[0].note).toContain("then retry. Listed from its checkpoint (state.json) instead");
    const text = await keel(w, "sessions", "list");
    expect(text.stdout).toMatch(/^big +\S+ +idle /m);
    expect(text.stdout).toContain("big: Cannot read state file");
    truncateSync(w.path(`${dir}/state.json`), 300 * 2 ** 20);
    // Neither readable: the row is unreadable, and says why and what to do.
    const none = await keel(w, "--json", "sessions", "list");
    expect(none.json().sessions).toEqual([expect.objectContaining({ id: "big", status: "unreadable" })]);
    expect(none.json().sessions[0].note).toContain(`${w.path(`${dir}/state.json`)}: it holds 300 MiB`);
    expect(none.json().sessions[0].note).toContain("move it away");
    const show = await keel(w, "sessions", "show", "big");
    expect(show.exitCode).toBe(1);
    expect(show.stderr).toContain("holds 300 MiB, more than keel reads of a state file (64 MiB)");
  });

  it("a session entry too long to read stops show with its offset instead of replaying the session without it", async () => {
    let offset = 0;
    const message = { role: "user", kind: "prompt", content: "z".repeat(65 * 2 ** 20) };
    const entry = JSON.stringify({ ts: 1, type: "session_message", sessionId: "big", message });
    const w = await sessionWithLog((file) => {
      offset = statSync(file).size;
      appendFileSync(file, entry + "\n");
    });
    const show = await keel(w, "sessions", "show", "big");
    expect(show.exitCode).toBe(1);
    expect(show.stderr).toContain(`has a session entry of ${entry.length} bytes at byte ${offset}, more than keel reads of one line (64 MiB)`);
  });

  it("show and resume read a session whose log holds 200 MB of other events past its checkpoint", async () => {
    const w = await sessionWithLog((file) => appendEvents(file, 200 * 2 ** 20));
    const show = await keel(w, "sessions", "show", "big");
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain("last answer:\n  hello");
    w.write("s.json", [{ text: "hello" }, { text: "again" }]);
    const resumed = await keel(w, "--json", "run", "--model", "scripted:s.json", "--resume", "big", "more");
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.json()).toMatchObject({ ok: true, text: "again" });
  });
  it("--tail N --follow on a stopped session prints a last line without a newline, as --tail N does", async () => {
    const w = await sessionWithLog((file) => appendFileSync(file, line("second_last") + line("unterminated").trimEnd()));
    const plain = await runKeel(["--json", "sessions", "events", "big", "--tail", "1"], { cwd: w.root, env: w.env });
    expect(JSON.parse(plain.stdout)).toMatchObject({ type: "unterminated" });
    // The session's process has stopped: following prints what there is, the unterminated last line too, and ends.
    const followed = await runKeel(["--json", "sessions", "events", "big", "--tail", "1", "--follow"], { cwd: w.root, env: w.env });
    expect(followed.exitCode, followed.stderr).toBe(0);
    expect(
      followed.stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).type),
    ).toEqual(["unterminated"]);
  });
});
