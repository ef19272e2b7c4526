import { describe, expect, it } from "vitest";
import { inBwrap, smallDiskDir } from "../../helpers/bwrap.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap): `--size N --tmpfs DIR` is a
// real file system of N bytes that really fills up; keel runs as a real process inside it (test/helpers/bwrap.ts).

/**
 * One response with two bash calls: the first fills the disk and prints 5000 bytes (more than the free part of the
 * log's last page, whatever it is), so what is recorded after it cannot be written and the second call is never run.
 */
const SCRIPT = JSON.stringify([
  {
    toolCalls: [
      { id: "fill", name: "bash", arguments: { command: 'dd if=/dev/zero of="$FS/filler" bs=4k 2>/dev/null; yes | head -c 5000' } },
      { id: "second", name: "bash", arguments: { command: "echo second-call-ran > marker" } },
    ],
  },
  { text: "resumed" },
]);

describe("a session whose event log fills the disk between two calls (real tmpfs, bwrap)", () => {
  it("the call keel could not record is not run, and on resume it is answered 'not run', not 'outcome unknown'", async () => {
    const dir = smallDiskDir();
    const r = await inBwrap(
      ["--size", "1048576", "--tmpfs", dir],
      [
        "set -u",
        'cd "$FS" && mkdir ws home && cd ws && git init -q',
        "export KEEL_HOME=$FS/home",
        `printf '%s' '${SCRIPT}' > script.json`,
        '$KEEL --yes run --model scripted:script.json --session s1 go; echo "rc=$?"',
        'echo "marker: $(ls marker 2>/dev/null)"',
        'rm "$FS/filler"',
        '$KEEL --yes run --model scripted:script.json --resume s1 again; echo "rc=$?"',
        'echo "---events"',
        "$KEEL --json sessions events s1",
      ].join("\n"),
      { ...process.env, FS: dir },
    );
    const [out, log] = r.stdout.split("---events\n");
    expect(out!.match(/rc=\d/g), r.stderr).toEqual(["rc=1", "rc=0"]);
    expect(r.stderr).toContain(`/ws/.keel/sessions/s1/events.jsonl: the disk is full (ENOSPC`);
    // the second call never ran
    expect(out).toMatch(/^marker: $/m);
    const events = log!
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; message?: { role: string; toolCallId?: string; content: string }; unknownCalls?: unknown });
    const results = Object.fromEntries(
      events.flatMap((e) => (e.type === "session_message" && e.message?.role === "tool" ? [[e.message.toolCallId, e.message.content]] : [])),
    );
    // The first call ran (its output was lost with the disk full): its outcome is unknown.
    expect(results["fill"]).toMatch(/Outcome unknown: .*it was running/);
    // The second has no record of starting: keel knows it did not run it.
    // Old code: "Outcome unknown: keel stopped (crash or kill) during this call; it may not have started. … Check the current state".
    expect(results["second"]).toMatch(
      /^Error \(precondition_failed\): Not run: keel stopped \(a crash, a kill, or its event log could not be written\) before this call started\./,
    );
    expect(results["second"]).toContain("the tool was not run");
    expect(events.filter((e) => e.type === "recovery").map((e) => e.unknownCalls)).toEqual([[{ id: "fill", tool: "bash", started: true }]]);
  });
});
