import { execa } from "execa";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { KEEL_BIN } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const OLD = "old content, complete\n";
const tempFiles = (dir: string) => readdirSync(dir).filter((n) => n.includes(".keel-tmp"));

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }));
}

/** A whole `keel --yes ARGS` process in `w` (exit code and output; never rejects). */
const keelProcess = (w: TempWorkspace, ...args: string[]) =>
  execa(process.execPath, [KEEL_BIN, "--yes", ...args], { cwd: w.root, env: w.env, reject: false, stdin: "ignore" });

/** Writes a `keel call` input file next to the workspace (not inside it). */
function inputFile(w: TempWorkspace, input: object): string {
  const file = join(w.root, "..", "input.json");
  writeFileSync(file, JSON.stringify(input));
  return file;
}

describe("write_file is atomic (real processes)", () => {
  it("past a file size limit (ulimit -f) it fails as execution_failed with exit 1, keeping the old content and mode and no temp file", async () => {
    ws = makeWorkspace({ "data.txt": OLD });
    chmodSync(ws.path("data.txt"), 0o640);
    const input = inputFile(ws, { path: "data.txt", content: "n".repeat(200_000) });
    // 16 blocks of 1 KiB: the new content does not fit; keel ignores SIGXFSZ and sees EFBIG.
    const r = await execa(
      "bash",
      ["-c", 'ulimit -f 16; exec "$0" "$@"', process.execPath, KEEL_BIN, "--yes", "--json", "call", "write_file", "--input-file", input],
      {
        cwd: ws.root,
        env: ws.env,
        reject: false,
        stdin: "ignore",
      },
    );
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(String(r.stdout))).toMatchObject({ ok: false, phase: "execute", code: "execution_failed", content: expect.stringContaining("EFBIG") });
    // What to do for a size limit, not for a full disk (old code: "free space or raise the limit" for both).
    expect(JSON.parse(String(r.stdout)).content).toBe(
      "Could not write data.txt: the file would grow past the largest file size allowed, by the process's `ulimit -f` or by the file system (EFBIG). data.txt was left unchanged; raise the limit (`ulimit -f unlimited` in the shell that starts keel) or, on a file system of small files such as FAT, work on another one, then retry.",
    );
    expect(ws.read("data.txt")).toBe(OLD);
    expect(statSync(ws.path("data.txt")).mode & 0o777).toBe(0o640);
    expect(tempFiles(ws.root)).toEqual([]);
  });

  it("a kill -9 while the new content is being written leaves the old or the new content in full, never a prefix", async () => {
    ws = makeWorkspace({ "big.txt": OLD });
    const content = "0123456789abcdef".repeat(4 * 1024 * 1024); // 64 MiB
    const input = inputFile(ws, { path: "big.txt", content });
    const child = execa(process.execPath, [KEEL_BIN, "--yes", "call", "write_file", "--input-file", input], {
      cwd: ws.root,
      env: ws.env,
      reject: false,
      stdin: "ignore",
    });
    let exited = false;
    void child.then(() => (exited = true));
    // Poll the folder (not a timer) until the temp file exists, then kill mid-write.
    let sawTemp = false;
    while (!exited && !sawTemp) {
      sawTemp = tempFiles(ws.root).length > 0;
      if (!sawTemp) await new Promise((r) => setTimeout(r, 1));
    }
    child.kill("SIGKILL");
    await child;
    const after = readFileSync(ws.path("big.txt"), "utf8");
    expect(after === OLD || after === content).toBe(true);
    if (!sawTemp) expect(after).toBe(content); // the process finished before the poll saw its temp file
    // What the kill left is named with the dead process's pid, and the next write of the file removes it.
    for (const name of tempFiles(ws.root)) expect(name).toMatch(new RegExp(`^\\.big\\.txt\\.keel-tmp-${child.pid}-[0-9a-f]{12}$`));
    const again = await keelProcess(ws, "call", "write_file", "--input", JSON.stringify({ path: "big.txt", content: "new\n" }));
    expect(again.exitCode, again.stderr).toBe(0);
    expect(tempFiles(ws.root)).toEqual([]);
  }, 120_000);

  it("write_file removes only the temp files a dead keel left for that very file: regular files, exact name, dead pid", async () => {
    ws = makeWorkspace({ "src/a.txt": OLD, "outside/keep.txt": "keep\n" });
    const dead = deadPid();
    const stale = [`.a.txt.keel-tmp-${dead}-0123456789ab`, `.a.txt.keel-tmp-${dead}-ffffffffffff`];
    const kept = [
      `.a.txt.keel-tmp-${process.pid}-0123456789ab`, // a live writer's
      `.b.txt.keel-tmp-${dead}-0123456789ab`, // another file's
      `.a.txt.keel-tmp-${dead}-notes`, // not keel's exact name
      `a.txt.keel-tmp-${dead}-0123456789ab`,
      ".a.txt.0123456789ab.keel-tmp", // an older keel's name: its pid is unknown
    ];
    for (const name of [...stale, ...kept]) writeFileSync(ws.path("src", name), "half");
    symlinkSync(ws.path("outside", "keep.txt"), ws.path("src", `.a.txt.keel-tmp-${dead}-aaaaaaaaaaaa`));
    mkdirSync(ws.path("src", `.a.txt.keel-tmp-${dead}-bbbbbbbbbbbb`));
    kept.push(`.a.txt.keel-tmp-${dead}-aaaaaaaaaaaa`, `.a.txt.keel-tmp-${dead}-bbbbbbbbbbbb`);
    const r = await keelProcess(ws, "call", "write_file", "--input", JSON.stringify({ path: "src/a.txt", content: "new\n" }));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ws.read("src/a.txt")).toBe("new\n");
    expect(
      readdirSync(ws.path("src"))
        .filter((n) => n !== "a.txt")
        .sort(),
    ).toEqual([...kept].sort());
    expect(ws.read("outside/keep.txt")).toBe("keep\n");
  });

  it("edit_file keeps the file mode and replaces the file in one step", async () => {
    ws = makeWorkspace({ "run.sh": "#!/bin/sh\necho one\n" });
    chmodSync(ws.path("run.sh"), 0o751);
    const run = (...args: string[]) => keelProcess(ws!, ...args);
    expect((await run("call", "read_file", "--input", JSON.stringify({ path: "run.sh" }))).exitCode).toBe(0);
    const before = statSync(ws.path("run.sh")).ino;
    const edit = await run("call", "edit_file", "--input", JSON.stringify({ path: "run.sh", old_string: "one", new_string: "two" }));
    expect(edit.exitCode).toBe(0);
    expect(ws.read("run.sh")).toBe("#!/bin/sh\necho two\n");
    expect(statSync(ws.path("run.sh")).mode & 0o777).toBe(0o751);
    expect(statSync(ws.path("run.sh")).ino).not.toBe(before); // a new file renamed into place, not rewritten in place
    expect(tempFiles(ws.root)).toEqual([]);
  });
});
