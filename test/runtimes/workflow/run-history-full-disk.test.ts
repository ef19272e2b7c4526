import { describe, expect, it } from "vitest";
import { inBwrap, smallDiskDir } from "../../helpers/bwrap.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap): `--size N --tmpfs DIR`
// is a real file system of N bytes, so the disk really fills up while keel appends a run to the history.

describe("the workflow run history on a disk that fills up (real tmpfs, bwrap, real CLI)", () => {
  it("a run whose record does not fit says it was not recorded and why, and leaves no part of it in the history", async () => {
    const dir = smallDiskDir();
    const workflows = { workflows: [{ name: "w", steps: [{ title: "note", detail: "d".repeat(3000) }] }] };
    const script = [
      'cd "$FS" && mkdir ws home && cd ws && git init -q',
      "export KEEL_HOME=$FS/home",
      `printf '%s' '${JSON.stringify(workflows)}' > .claw-workflows.json`,
      "RUNS=.keel/state/workflow-runs.jsonl",
      "$KEEL --trust workflow run w >/dev/null",
      'echo "before=$(wc -c < $RUNS)"',
      // full, except the rest of the history's last page: the next record is cut short there
      'dd if=/dev/zero of="$FS/filler" bs=1k 2>/dev/null; true',
      '$KEEL --trust workflow run w; echo "run=$?"',
      'echo "after=$(wc -c < $RUNS)"',
      'rm "$FS/filler"',
      "$KEEL --trust workflow run w >/dev/null",
      "$KEEL --json workflow runs",
    ].join("\n");
    const r = await inBwrap(["--size", "1048576", "--tmpfs", dir], script, { ...process.env, FS: dir });
    expect(r.stdout, r.stderr).toContain("run=0");
    expect(r.stdout).toContain(
      `The run record could not be written to ${dir}/ws/.keel/state/workflow-runs.jsonl: the disk is full (ENOSPC: no space left on device, write); free space on that disk, then retry.`,
    );
    expect(r.stdout).toMatch(/Run wfr_\w+ was not recorded \(see the warning above\)\./);
    expect(r.stdout).not.toMatch(/Run wfr_\w+ recorded in/);
    expect(/after=(\d+)/.exec(r.stdout)![1]).toBe(/before=(\d+)/.exec(r.stdout)![1]);
    const runs = JSON.parse(r.stdout.slice(r.stdout.lastIndexOf("\n{") + 1)) as unknown;
    expect(JSON.stringify(runs)).not.toContain("skipped");
    expect((runs as { runs?: unknown[] }).runs ?? runs).toHaveLength(2);
  });
});
