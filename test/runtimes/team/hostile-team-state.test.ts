import { mkdirSync, readdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const keel = (w: TempWorkspace, ...args: string[]) => runKeel(["--json", ...args], { cwd: w.root, env: w.env });

/** A workspace with team crew (alice, bobby) and one message to each, alice's first. */
async function crewOfTwo(): Promise<TempWorkspace> {
  const w = makeWorkspace();
  await keel(w, "team", "create", "crew", "alice", "bobby");
  await keel(w, "team", "send", "crew", "for alice", "--to", "alice");
  await keel(w, "team", "send", "crew", "for bobby", "--to", "bobby");
  return w;
}

/**
 * Replaces crewOfTwo's message log `log` with another whose lines have the same lengths, the recipients the other way
 * round (a restored copy, a checkout): an index kept for the old log says line 1 is alice's.
 */
function swapRecipients(w: TempWorkspace, log: string): void {
  const [first, second] = w.read(log).trimEnd().split("\n") as [string, string];
  const retarget = (line: string, from: string, to: string) => line.replaceAll(`"${from}"`, `"${to}"`).replace(`for ${from}`, `for ${to}`);
  w.write(log, `${retarget(first, "alice", "bobby")}\n${retarget(second, "bobby", "alice")}\n`);
}

describe("team state a cloned repository committed (real CLI)", () => {
  it("team delete never archives the messages through a linked archive folder", async () => {
    ws = makeWorkspace();
    const outside = join(ws.keelHome, "..", "outside");
    mkdirSync(outside);
    expect((await keel(ws, "team", "create", "crew", "alice")).exitCode).toBe(0);
    expect((await keel(ws, "team", "send", "crew", "hello")).exitCode).toBe(0);
    symlinkSync(outside, ws.path(".keel/state/teams/archive"));

    const run = await keel(ws, "team", "delete", "crew");
    expect(run.exitCode).toBe(1);
    expect(run.json().content).toContain(`${ws.path(".keel/state/teams/archive")} is a symlink`);
    expect(readdirSync(outside)).toEqual([]);
    // nothing moved or forgotten: the team and its messages are where they were
    expect(ws.read(".keel/state/teams/live/crew/messages.jsonl")).toContain('"hello"');
    expect((await keel(ws, "team", "messages", "crew")).json().data.messages).toHaveLength(1);
  });

  it("a declared-teams file linked outside the workspace is not read, and its text is not quoted", async () => {
    ws = makeWorkspace();
    const secret = join(ws.keelHome, "..", "credentials");
    writeFileSync(secret, "[default]\naws_secret_access_key = SECRET123\n");
    const list = join(ws.keelHome, "..", "list.json");
    writeFileSync(list, JSON.stringify([{ name: "leak", description: "SECRET456" }]));
    for (const [rel, target, hidden] of [
      [".claw-teams.json", secret, "[default]"],
      [".keel/teams.json", list, "SECRET456"],
    ] as const) {
      symlinkSync(target, ws.path(rel));
      const run = await keel(ws, "team", "list");
      expect(run.exitCode, rel).toBe(1);
      expect(run.json().content).toContain(`Declared teams file ${ws.path(rel)} leads to ${target}, outside the workspace`);
      expect(run.stdout).not.toContain(hidden);
      expect(run.stderr).not.toContain(hidden);
      rmSync(ws.path(rel));
      ws.write(rel, { teams: [{ name: "ok", members: ["a"] }] }); // a regular file in its place is read
      expect((await keel(ws, "team", "list")).json().data.teams.map((t: { name: string }) => t.name)).toEqual(["ok"]);
    }
  });

  it("a committed message index whose entries reach past the log is rebuilt from the log", async () => {
    ws = makeWorkspace();
    await keel(ws, "team", "create", "crew", "alice");
    await keel(ws, "team", "send", "crew", "first");
    await keel(ws, "team", "send", "crew", "second", "--to", "alice");
    const index = ".keel/state/teams/live/crew/index.json";
    const stored = JSON.parse(ws.read(index));
    for (const bad of [
      { ...stored, recipients: { "@*": [[1, 0, 2_000_000_000]] } },
      { ...stored, recipients: { "@*": [[1, -5, 10]] } },
      { ...stored, recipients: { "@*": 5 } },
      { ...stored, recipients: { "@*": [5] } },
    ]) {
      ws.write(index, bad);
      const run = await keel(ws, "team", "messages", "crew");
      expect(run.exitCode, JSON.stringify(bad)).toBe(0);
      expect(run.json().data.messages.map((m: { message: string }) => m.message)).toEqual(["first", "second"]);
    }
  });
});

describe("a message index that no longer describes its log (real CLI)", () => {
  it("a log replaced by another of the same size (a restored copy, a checkout) is read from the log, not through the stale index", async () => {
    ws = await crewOfTwo();
    const log = ".keel/state/teams/live/crew/messages.jsonl";
    const forAlice = async () =>
      (await keel(ws!, "team", "messages", "crew", "--for", "alice")).json().data.messages.map((m: { message: string }) => m.message);
    expect(await forAlice()).toEqual(["for alice"]);
    swapRecipients(ws, log);
    expect(await forAlice()).toEqual(["for alice"]); // old code: ["for bobby"], bobby's message shown as alice's
    expect(JSON.parse(ws.read(log).split("\n")[1]!)).toMatchObject({ seq: 2, recipient: "alice", message: "for alice" });
  });

  it("a send after the log was replaced rebuilds the stale index before appending: the index written back describes the log", async () => {
    ws = await crewOfTwo();
    const dir = ".keel/state/teams/live/crew";
    swapRecipients(ws, `${dir}/messages.jsonl`);
    expect((await keel(ws, "team", "send", "crew", "third", "--to", "alice")).exitCode).toBe(0);
    const seqs = (key: string) => (JSON.parse(ws!.read(`${dir}/index.json`)).recipients[key] ?? []).map((e: number[]) => e[0]);
    expect(seqs("@alice")).toEqual([2, 3]); // old code: [1, 3], the stale entries written back
    expect(seqs("@bobby")).toEqual([1]);
    const forAlice = (await keel(ws, "team", "messages", "crew", "--for", "alice")).json().data.messages;
    expect(forAlice.map((m: { seq: number; message: string }) => [m.seq, m.message])).toEqual([
      [2, "for alice"],
      [3, "third"],
    ]);
  });

  it("a log replaced by a longer one, the index's end falling inside a line, is indexed from the start (no 'not valid JSON' error)", async () => {
    ws = makeWorkspace();
    await keel(ws, "team", "create", "crew", "alice");
    await keel(ws, "team", "send", "crew", "one");
    await keel(ws, "team", "send", "crew", "two");
    const log = ".keel/state/teams/live/crew/messages.jsonl";
    const lines = ws.read(log).trimEnd().split("\n");
    const zero = JSON.stringify({ ...JSON.parse(lines[0]!), id: "msg_0", seq: 0, message: "zero, a longer first line" });
    ws.write(log, `${zero}\n${lines.join("\n")}\n`);
    const run = await keel(ws, "team", "messages", "crew");
    expect(run.exitCode, run.stdout).toBe(0); // old code: exit 1, "has a line that is not valid JSON"
    expect(run.json().data.messages.map((m: { message: string }) => m.message)).toEqual(["zero, a longer first line", "one", "two"]);
  });
});

describe("team message logs a cloned repository committed: bounded reads (real CLI)", () => {
  it("an unindexed 8 GiB log is refused with the limit named, not read into memory", async () => {
    ws = makeWorkspace();
    await keel(ws, "team", "create", "crew", "alice");
    await keel(ws, "team", "send", "crew", "hello");
    const dir = ".keel/state/teams/live/crew";
    // sparse: no disk used; before, keel allocated the whole tail (a RangeError past 4 GiB)
    truncateSync(ws.path(`${dir}/messages.jsonl`), 8 * 1024 ** 3);
    rmSync(ws.path(`${dir}/index.json`), { force: true });
    const run = await keel(ws, "team", "messages", "crew");
    expect(run.exitCode).toBe(1);
    expect(run.json().content).toContain("holds 8192 MiB its index does not cover");
    expect(run.json().content).toContain("(64 MiB)");
  });

  it("an index whose entries add up to more than 64 MiB returns fewer messages and says how many there are", async () => {
    ws = makeWorkspace();
    await keel(ws, "team", "create", "crew", "alice");
    await keel(ws, "team", "send", "crew", "x".repeat(1000));
    const dir = ".keel/state/teams/live/crew";
    const stored = JSON.parse(ws.read(`${dir}/index.json`));
    const [entry] = stored.recipients["@*"];
    // 100,000 entries naming the same ~1 KB line: ~100 MB to read before
    // (all with the line's own seq: an entry naming another seq than its line's is a stale index, rebuilt from the log)
    ws.write(`${dir}/index.json`, { ...stored, recipients: { "@*": Array.from({ length: 100_000 }, () => [1, entry[1], entry[2]]) } });
    const run = await keel(ws, "team", "messages", "crew");
    expect(run.exitCode).toBe(0);
    const messages = run.json().data.messages;
    expect(run.json().data.total).toBe(100_000);
    expect(messages.length).toBeLessThanOrEqual(Math.floor((64 * 1024 * 1024) / entry[2]));
    expect(messages.length).toBeGreaterThan(0);
  });
});
