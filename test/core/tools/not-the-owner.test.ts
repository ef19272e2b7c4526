import { execa } from "execa";
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { KEEL_BIN } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// keel runs as another user (uid 1000) through util-linux's setpriv, which only root may do: elsewhere these tests
// are skipped. As root, file permissions do not bite, so this is the only way to meet a real EACCES.
const asRoot = process.geteuid?.() === 0;
const USER = 1000;

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** Gives `path` and everything below it to USER. */
function giveAway(path: string): void {
  chownSync(path, USER, USER);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) giveAway(child);
    else chownSync(child, USER, USER);
  }
}

/** `keel --yes call TOOL --input INPUT` as USER, in the workspace; its output and exit code. */
async function callAsUser(tool: string, input: object) {
  execFileSync("setpriv", ["--version"]); // fails the test with a clear error where util-linux's setpriv is missing
  const env = { ...ws!.env, HOME: dirname(ws!.keelHome), SUDO_UID: undefined };
  const r = await execa(
    "setpriv",
    ["--reuid", String(USER), "--regid", String(USER), "--clear-groups", process.execPath, KEEL_BIN, "--yes", "call", tool, "--input", JSON.stringify(input)],
    { cwd: ws!.root, env, extendEnv: false, reject: false, stdin: "ignore" },
  );
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode };
}

describe.skipIf(!asRoot)("file tools where keel runs as a user who may not write (real EACCES, setpriv)", () => {
  it("write_file into a folder another user owns says keel may not write there and not to retry, and leaves nothing there", async () => {
    ws = makeWorkspace({ "readme.md": "hello\n" });
    const locked = ws.path("locked");
    mkdirSync(locked);
    writeFileSync(join(locked, "kept.txt"), "theirs\n");
    giveAway(dirname(ws.root));
    // `locked/` stays root's: the user may read it, not write it
    chownSync(locked, 0, 0);
    chownSync(join(locked, "kept.txt"), 0, 0);
    chmodSync(locked, 0o755);
    chmodSync(dirname(ws.root), 0o755);

    const fresh = await callAsUser("write_file", { path: "locked/new.txt", content: "mine\n" });
    expect(fresh.exitCode, fresh.stderr).toBe(1);
    expect(fresh.stdout).toContain(
      "Could not write locked/new.txt: keel may not write there (EACCES). locked/new.txt was left unchanged; this write cannot succeed as things stand: do not retry it, ask the user or write elsewhere.",
    );
    const deeper = await callAsUser("write_file", { path: "locked/sub/new.txt", content: "mine\n" });
    expect(deeper.exitCode, deeper.stderr).toBe(1);
    expect(deeper.stdout).toContain("Could not write locked/sub/new.txt: keel may not write there (EACCES).");
    const over = await callAsUser("write_file", { path: "locked/kept.txt", content: "mine\n" });
    expect(over.exitCode, over.stderr).toBe(1);
    expect(over.stdout).toContain(
      "Could not write locked/kept.txt: it is read-only for keel (EACCES; mode 0644, owner uid 0). locked/kept.txt was left unchanged",
    );
    // nothing was made there: no file, no folder, no temp file
    expect(readdirSync(locked)).toEqual(["kept.txt"]);
    expect(ws.read("locked/kept.txt")).toBe("theirs\n");
    // and the user's own folder still takes writes
    const ok = await callAsUser("write_file", { path: "mine.txt", content: "mine\n" });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(existsSync(ws.path("mine.txt"))).toBe(true);
  });

  it("write_file and edit_file refuse a read-only file of the user's own in a folder it may write (rename would replace it), changing nothing", async () => {
    ws = makeWorkspace({ "ro.txt": "keep me\n", "rw.txt": "change me\n" });
    chmodSync(ws.path("ro.txt"), 0o444);
    giveAway(dirname(ws.root));
    chmodSync(dirname(ws.root), 0o755);
    const write = await callAsUser("write_file", { path: "ro.txt", content: "mine\n" });
    expect(write.exitCode, write.stderr).toBe(1);
    expect(write.stdout).toContain("Could not write ro.txt: it is read-only for keel (EACCES; mode 0444, owner uid 1000). ro.txt was left unchanged");
    expect((await callAsUser("read_file", { path: "ro.txt" })).exitCode).toBe(0);
    const edit = await callAsUser("edit_file", { path: "ro.txt", old_string: "keep", new_string: "lose" });
    expect(edit.exitCode, edit.stderr).toBe(1);
    expect(edit.stdout).toContain("it is read-only for keel");
    expect(ws.read("ro.txt")).toBe("keep me\n");
    expect(readdirSync(ws.root).sort()).toEqual([".keel", "ro.txt", "rw.txt"]);
    // a writable file of the same folder still takes the write
    expect((await callAsUser("write_file", { path: "rw.txt", content: "changed\n" })).exitCode).toBe(0);
  });
});

describe.skipIf(!asRoot)("file tools keep the owner of the file they replace", () => {
  it("edit_file and write_file run as root keep another user's file theirs (owner and group), with its mode", async () => {
    ws = makeWorkspace({ "theirs.sh": "echo one\n" });
    chownSync(ws.path("theirs.sh"), USER, USER);
    chmodSync(ws.path("theirs.sh"), 0o750);
    const run = (tool: string, input: object) =>
      execa(process.execPath, [KEEL_BIN, "--yes", "call", tool, "--input", JSON.stringify(input)], { cwd: ws!.root, env: ws!.env, reject: false });
    expect((await run("read_file", { path: "theirs.sh" })).exitCode).toBe(0);
    const edit = await run("edit_file", { path: "theirs.sh", old_string: "one", new_string: "two" });
    expect(edit.exitCode, String(edit.stdout)).toBe(0);
    expect(statSync(ws.path("theirs.sh"))).toMatchObject({ uid: USER, gid: USER, mode: 0o100750 });
    expect((await run("write_file", { path: "theirs.sh", content: "echo three\n" })).exitCode).toBe(0);
    expect(statSync(ws.path("theirs.sh"))).toMatchObject({ uid: USER, gid: USER, mode: 0o100750 });
    expect(ws.read("theirs.sh")).toBe("echo three\n");
  });

  it("a replaced setuid or setgid file of another user (a hard link a workspace planted) keeps its owner, never those bits", async () => {
    // As root, the replacement is given the old file's uid: with the old mode's setuid bit it would run the model's
    // bytes as that user (a hard link to their setuid program, where fs.protected_hardlinks allows one).
    ws = makeWorkspace({ tool: "#!/bin/sh\necho one\n", "group-tool": "#!/bin/sh\necho one\n" });
    chownSync(ws.path("tool"), USER, USER);
    chmodSync(ws.path("tool"), 0o4755);
    chownSync(ws.path("group-tool"), USER, USER);
    chmodSync(ws.path("group-tool"), 0o2750);
    const run = (tool: string, input: object) =>
      execa(process.execPath, [KEEL_BIN, "--yes", "call", tool, "--input", JSON.stringify(input)], { cwd: ws!.root, env: ws!.env, reject: false });
    expect((await run("write_file", { path: "tool", content: "#!/bin/sh\nid\n" })).exitCode).toBe(0);
    expect(statSync(ws.path("tool"))).toMatchObject({ uid: USER, gid: USER, mode: 0o100755 });
    expect((await run("read_file", { path: "group-tool" })).exitCode).toBe(0);
    expect((await run("edit_file", { path: "group-tool", old_string: "echo one", new_string: "id" })).exitCode).toBe(0);
    expect(statSync(ws.path("group-tool"))).toMatchObject({ uid: USER, gid: USER, mode: 0o100750 });
    expect(ws.read("group-tool")).toBe("#!/bin/sh\nid\n");
  });
});
