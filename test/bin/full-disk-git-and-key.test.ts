import { describe, expect, it } from "vitest";
import { inBwrap, smallDiskDir } from "../helpers/bwrap.js";
import { tempDirForTest } from "../helpers/temp-workspace.js";

// The disk is real: bwrap's tmpfs of a fixed size, filled with dd (see test/helpers/bwrap.ts).

/** A git repository at $FS/ws whose one commit (a 400 KB file) no longer fits once `$SPARE` bytes are all that is free. */
const REPO_THEN_FILL = [
  "set -u",
  'cd "$FS" && mkdir ws home && cd ws && git init -q && git config user.email t@example.com && git config user.name t',
  "head -c 400000 /dev/urandom > big && git add big && git commit -qm init",
  "export KEEL_HOME=$FS/home",
  "$KEEL tools >/dev/null",
  // leave $SPARE bytes free: a spare file made before the filler, removed after it
  'head -c "$SPARE" /dev/zero > "$FS/spare"',
  'dd if=/dev/zero of="$FS/filler" bs=4k 2>/dev/null; true',
  'rm "$FS/spare"',
];

describe("keel worktree enter on a full disk (real tmpfs, bwrap)", () => {
  it.each([
    // room for keel's own files, not for git's checkout: git says only `unable to write file big`
    ["git does not say why", "200000", "unable to write file big;", "KiB left free there) at"],
    // git's own files do not fit: git names the errno
    ["git names the errno", "16384", "No space left on device", ""],
  ])("says the disk is full and what to do (%s), keeps nothing of the worktree, and works once there is room", async (_, spare, said, more) => {
    const dir = smallDiskDir();
    const r = await inBwrap(
      ["--size", "2097152", "--tmpfs", dir],
      [
        ...REPO_THEN_FILL,
        '$KEEL worktree enter exp; echo "rc=$?"',
        'echo "branches: $(git branch --list "keel/*" | tr -d " *\n") left: $(ls -A .keel/worktrees 2>/dev/null | tr "\n" " ")"',
        'rm "$FS/filler"',
        '$KEEL worktree enter exp; echo "rc=$?"',
      ].join("\n"),
      { ...process.env, FS: dir, SPARE: spare },
    );
    expect(r.stdout.match(/rc=\d/g), r.stderr).toEqual(["rc=1", "rc=0"]);
    expect(r.stderr).toContain("keel: git could not create the worktree: the disk is full (git: ");
    expect(r.stderr).toContain(said);
    expect(r.stderr).toContain(more);
    expect(r.stderr).toContain("free space on that disk, then retry. Nothing of it was kept. git said: ");
    expect(r.stdout).toMatch(/branches: {2}left: *$/m);
    expect(r.stdout).toContain('Entered worktree "exp"');
  });
});

describe("the session key on a full disk (real tmpfs, bwrap)", () => {
  it("a new run warns its session could not be sealed (it was silent), and `keel sessions adopt` says the disk is full and to free space, not to make $KEEL_HOME writable", async () => {
    const dir = smallDiskDir();
    const ws = tempDirForTest("keel-ws-");
    const r = await inBwrap(
      ["--size", "65536", "--tmpfs", dir],
      [
        "set -u",
        'mkdir -p "$FS/home" && cd "$WS" && git init -q',
        "export KEEL_HOME=$FS/home",
        `printf '%s' '[{"text":"first"}]' > script.json`,
        'dd if=/dev/zero of="$FS/filler" bs=4k 2>/dev/null; true',
        '$KEEL --yes run --model scripted:script.json --session s1 hello; echo "rc=$?"',
        '$KEEL sessions adopt s1; echo "rc=$?"',
        'echo "home: $(ls -A "$FS/home" | tr "\n" " ")"',
      ].join("\n"),
      { ...process.env, FS: dir, WS: ws },
    );
    expect(r.stdout.match(/rc=\d/g), r.stderr).toEqual(["rc=0", "rc=1"]);
    expect(r.stderr).toContain(
      `keel: keel could not create its session key ${dir}/home/session-key: the disk is full (ENOSPC: no space left on device, write) at ${dir}/home/session-key; free space on that disk, then retry.`,
    );
    expect(r.stderr).not.toContain("Make $KEEL_HOME writable");
    // the run itself warned that its session could not be sealed, and how to resume it later
    expect(r.stderr).toContain(
      `keel: warning: session s1 could not be sealed as yours (keel could not create its session key ${dir}/home/session-key: the disk is full`,
    );
    expect(r.stderr).toContain("so it cannot be resumed as it is: once that is fixed, run `keel sessions adopt s1` to resume it");
    expect(r.stdout).toMatch(/home: *$/m);
  });
});
