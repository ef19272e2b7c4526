import { describe, expect, it } from "vitest";
import { inBwrap, smallDiskDir } from "../../helpers/bwrap.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap): `--size N --tmpfs DIR`
// is a real file system of N bytes, so the disk really fills up while keel appends to a team's message log.

describe("a team's message log on a disk that fills up (real tmpfs, bwrap, real CLI)", () => {
  it("a message that does not fit is not sent, says why naming the log, and leaves no part of it in the log", async () => {
    const dir = smallDiskDir();
    const script = [
      'cd "$FS" && mkdir ws home && cd ws && git init -q',
      "export KEEL_HOME=$FS/home",
      "LOG=.keel/state/teams/live/t1/messages.jsonl",
      "$KEEL --yes team create t1 alice bob >/dev/null",
      "$KEEL --yes team send t1 first >/dev/null",
      'echo "before=$(wc -c < $LOG)"',
      // full, except the rest of the log's last page: the long message's line is cut short there
      'dd if=/dev/zero of="$FS/filler" bs=1k 2>/dev/null; true',
      `$KEEL --yes team send t1 "$(printf 'y%.0s' $(seq 6000))"; echo "send=$?"`,
      'echo "after=$(wc -c < $LOG)"',
      'rm "$FS/filler"',
      "$KEEL --yes team send t1 third >/dev/null",
      "$KEEL --json team messages t1",
    ].join("\n");
    const r = await inBwrap(["--size", "1048576", "--tmpfs", dir], script, { ...process.env, FS: dir });
    const log = `${dir}/ws/.keel/state/teams/live/t1/messages.jsonl`;
    expect(r.stdout, r.stderr).toContain("send=1");
    expect(r.stdout).toContain(
      `Could not append to the message log ${log}: the disk is full (ENOSPC: no space left on device, write); free space on that disk, then retry. The message was not sent.`,
    );
    expect(/after=(\d+)/.exec(r.stdout)![1]).toBe(/before=(\d+)/.exec(r.stdout)![1]);
    const messages = JSON.parse(r.stdout.slice(r.stdout.indexOf("{"))).data.messages as { id: string; message: string }[];
    expect(messages.map((m) => [m.id, m.message])).toEqual([
      ["msg_1", "first"],
      ["msg_2", "third"],
    ]);
  });
});
