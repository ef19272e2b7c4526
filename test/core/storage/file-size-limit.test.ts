import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { storageMessage } from "../../../core/state/storage-problem.js";
import { KEEL_BIN } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** A first turn with no tool call, then a call that prints 3000 bytes (the log outgrows the limit), then two more. */
const SCRIPT = [
  { text: "first" },
  { toolCalls: [{ id: "a", name: "bash", arguments: { command: "yes | head -c 3000; echo a-ran > a.txt" } }] },
  { toolCalls: [{ id: "b", name: "bash", arguments: { command: "echo b-ran > b.txt" } }] },
  { text: "done" },
];

describe("a session whose event log reaches the file size limit (real `ulimit -f`: Node ignores SIGXFSZ, writes get EFBIG)", () => {
  it("says the log hit the size limit and what to do, keeps every event it recorded whole, and resumes once the limit is raised", async () => {
    ws = makeWorkspace({ "script.json": SCRIPT }, { git: true });
    const keel = `"${process.execPath}" "${KEEL_BIN}" --yes run --model scripted:script.json`;
    const log = ".keel/sessions/s1/events.jsonl";
    const r = await execa(
      "bash",
      [
        "-c",
        [
          `${keel} --session s1 hello >/dev/null || exit 9`,
          `cp ${log} before.jsonl`,
          // a limit about 3 KiB past the log's size: the next turn's first call is recorded, its 3000-byte result is not
          `size=$(stat -c %s ${log})`,
          `(ulimit -f $((size / 1024 + 4)); ${keel} --resume s1 go; echo "rc=$?")`,
          `cp ${log} after.jsonl`,
        ].join("\n"),
      ],
      { cwd: ws.root, env: ws.env, reject: false, stdin: "ignore" },
    );
    expect(r.stdout, r.stderr).toMatch(/^rc=1$/m);
    // What happened and what to do, naming the log.
    expect(r.stderr).toContain(
      `keel: Could not write keel's event log ${ws.path(".keel", "sessions", "s1", "events.jsonl")}: the file would grow past the largest file size allowed, by the process's \`ulimit -f\` or by the file system (EFBIG: file too large, write)`,
    );
    expect(r.stderr).toContain("raise the limit (`ulimit -f unlimited` in the shell that starts keel)");
    // Nothing recorded was lost or torn: the log still starts with everything it held, and ends in a whole line.
    const before = ws.read("before.jsonl");
    const after = ws.read("after.jsonl");
    expect(after.startsWith(before)).toBe(true);
    expect(after.endsWith("\n")).toBe(true);
    for (const line of after.trimEnd().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
    // The call that ran was recorded as started before it ran; with the limit raised the session resumes.
    expect(ws.exists("a.txt")).toBe(true);
    const resumed = await execa(process.execPath, [KEEL_BIN, "--yes", "run", "--model", "scripted:script.json", "--resume", "s1", "again"], {
      cwd: ws.root,
      env: ws.env,
      reject: false,
      stdin: "ignore",
    });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain("Outcome unknown");
    expect(ws.exists("b.txt")).toBe(true);
  });
});

describe("what a used-up disk quota (EDQUOT) means", () => {
  // A mock of the error, not of a disk: a quota needs a file system mounted with quotas and `setquota`, which the
  // test machines do not have (tmpfs takes quota mount options, but bwrap cannot pass them).
  it("says the quota is used up and what to do, like the full disk", () => {
    const error = Object.assign(new Error("EDQUOT: disk quota exceeded, write"), { code: "EDQUOT", syscall: "write" });
    expect(storageMessage(error, "/x/events.jsonl")).toBe(
      "your disk quota on that file system is used up (EDQUOT: disk quota exceeded, write) at /x/events.jsonl; free space in it (delete or move files of yours there) or ask for a larger quota, then retry.",
    );
  });
});
