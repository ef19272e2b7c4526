import { existsSync, readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { inBwrap, smallDiskDir } from "../helpers/bwrap.js";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

// The disks are real: bwrap's tmpfs of a fixed size, and read-only binds (see test/helpers/bwrap.ts).

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** Sets up a workspace and $KEEL_HOME in the tmpfs at $FS, fills the disk, runs `commands`, prints a JSON record of what is left. */
function fullDiskScript(commands: string): string {
  return [
    "set -u",
    'cd "$FS" && mkdir ws home && cd ws && git init -q',
    "export KEEL_HOME=$FS/home",
    `printf '%s' '{"permissions":{"deny":["bash(rm *)"]}}' > keel.config.json`,
    // a first change while there is room (it also starts .keel/events.jsonl, whose last page has room left for a few events)
    "$KEEL config set model.name foo --source project >/dev/null",
    // fill the disk (the files above keep their content)
    'dd if=/dev/zero of="$FS/filler" bs=4k 2>/dev/null; true',
    commands,
  ].join("\n");
}

describe("keel on a full disk (real tmpfs, bwrap)", () => {
  it("config set and trust say the disk is full, name the file and what to do, and leave every file as it was with no temp file", async () => {
    const dir = smallDiskDir();
    const env: NodeJS.ProcessEnv = { ...process.env, FS: dir };
    delete env.KEEL_TRUST;
    const r = await inBwrap(
      ["--size", "262144", "--tmpfs", dir],
      fullDiskScript(
        [
          '$KEEL config set model.name bar --source project; echo "config=$?" >&2',
          '$KEEL trust; echo "trust=$?" >&2',
          "echo '---'; cat keel.config.json; echo '---'; ls -A . $KEEL_HOME",
        ].join("\n"),
      ),
      env,
    );
    expect(r.stderr).toContain("config=1");
    expect(r.stderr).toContain("trust=1");
    expect(r.stdout).toContain(`Could not write ${dir}/ws/keel.config.json: the disk is full (ENOSPC`);
    expect(r.stdout).toContain("free space on that disk, then retry. The file keeps its previous content.");
    expect(r.stderr).toContain(`keel: Could not write ${dir}/home/trust.json: the disk is full (ENOSPC`);
    const [, config, listing] = r.stdout.split("---\n");
    expect(JSON.parse(config!)).toEqual({ permissions: { deny: ["bash(rm *)"] }, model: { name: "foo" } });
    expect(listing).not.toMatch(/keel-tmp|trust\.json/);
  });
});

describe(".keel/.gitignore on a full disk (real tmpfs, bwrap)", () => {
  it("is never left empty: once there is room keel writes its own, and git status stays clean", async () => {
    const dir = smallDiskDir();
    const env: NodeJS.ProcessEnv = { ...process.env, FS: dir };
    const r = await inBwrap(
      ["--size", "262144", "--tmpfs", dir],
      [
        'cd "$FS" && mkdir ws home && cd ws && git init -q && echo hi > f.txt && git add f.txt',
        "git -c user.name=keel -c user.email=test@keel.invalid -c commit.gpgsign=false commit -qm initial",
        "export KEEL_HOME=$FS/home",
        'dd if=/dev/zero of="$FS/filler" bs=4k 2>/dev/null; true',
        `$KEEL call read_file --input '{"path":"f.txt"}'; echo "full=$?"`,
        'rm "$FS/filler"',
        `$KEEL call read_file --input '{"path":"f.txt"}' >/dev/null; echo "room=$?"`,
        'echo "status:$(git status --porcelain --untracked-files=all | tr "\n" " ")"',
      ].join("\n"),
      env,
    );
    expect(r.stdout, r.stderr).toContain("full=0");
    expect(r.stdout).toContain("room=0");
    expect(r.stdout).toMatch(/status:$/m);
  });
});

describe("keel init on a full disk (real tmpfs, bwrap)", () => {
  it("leaves no empty file that the next `keel init` would keep as already there, and says the disk is full", async () => {
    const dir = smallDiskDir();
    const env: NodeJS.ProcessEnv = { ...process.env, FS: dir };
    const r = await inBwrap(
      ["--size", "262144", "--tmpfs", dir],
      [
        'cd "$FS" && mkdir ws home && cd ws && git init -q',
        "export KEEL_HOME=$FS/home",
        'dd if=/dev/zero of="$FS/filler" bs=4k 2>/dev/null; true',
        '$KEEL init; echo "full=$?"',
        'echo "files:$(find . -path ./.git -prune -o -type f -print | tr "\n" " ")"',
        'rm "$FS/filler"',
        '$KEEL init >/dev/null; echo "room=$?"',
        "cat keel.config.json",
      ].join("\n"),
      env,
    );
    expect(r.stdout, r.stderr).toContain("full=1");
    expect(r.stdout).toContain(`refused keel.config.json             Cannot write ${dir}/ws/keel.config.json: the disk is full (ENOSPC`);
    expect(r.stdout).toMatch(/files:$/m);
    expect(r.stdout).toContain("room=0");
    expect(r.stdout.slice(r.stdout.indexOf("room=0") + 6).trim()).not.toBe("");
  });
});

describe("sessions on a full disk (real tmpfs, bwrap)", () => {
  it("a resume and a new run say the disk is full and leave no lock temp file nor a session folder without session.json; the session resumes once there is room", async () => {
    const dir = smallDiskDir();
    const env: NodeJS.ProcessEnv = { ...process.env, FS: dir };
    const run = (args: string) => `$KEEL --yes run --model scripted:script.json ${args}; echo "rc=$?"`;
    const r = await inBwrap(
      ["--size", "1048576", "--tmpfs", dir],
      [
        "set -u",
        'cd "$FS" && mkdir ws home && cd ws && git init -q',
        "export KEEL_HOME=$FS/home",
        `printf '%s' '[{"text":"first"},{"text":"second"},{"text":"third"}]' > script.json`,
        run("--session s1 hello"),
        'dd if=/dev/zero of="$FS/filler" bs=4k 2>/dev/null; true',
        run("--resume s1 again"),
        run("--session s2 new"),
        'echo "files: $(ls -A .keel/sessions .keel/sessions/s1 | tr "\n" " ")"',
        "$KEEL sessions list",
        'rm "$FS/filler"',
        run("--resume s1 again"),
      ].join("\n"),
      env,
    );
    expect(r.stdout.match(/rc=\d/g), r.stderr).toEqual(["rc=0", "rc=1", "rc=1", "rc=0"]);
    expect(r.stderr).toContain(
      `keel: Cannot lock session s1: the disk is full (ENOSPC: no space left on device, write) at ${dir}/ws/.keel/sessions/s1/writer.lock; free space on that disk, then retry.`,
    );
    expect(r.stderr).toContain(
      `keel: Could not start session s2: the disk is full (ENOSPC: no space left on device, write) at ${dir}/ws/.keel/sessions/s2/session.json; free space on that disk, then retry.`,
    );
    const files = /files: (.*)/.exec(r.stdout)![1]!.trim().split(" ");
    expect(files).not.toContain("s2");
    expect(files.filter((f) => f.includes("writer.lock"))).toEqual([]);
    expect(r.stdout).not.toContain("unreadable");
  });
});

describe("a tool's long output on a full disk (real tmpfs, bwrap)", () => {
  it("the call says the full output could not be saved and why, and leaves no empty or partial artifact", async () => {
    const dir = smallDiskDir();
    const env: NodeJS.ProcessEnv = { ...process.env, FS: dir };
    const r = await inBwrap(
      ["--size", "262144", "--tmpfs", dir],
      fullDiskScript(
        [
          // the call's own events still fit in the log's last page; its 100 KiB of output does not fit anywhere
          `$KEEL --yes --json call bash --input '{"command":"seq 1 20000"}'`,
          `echo "---artifacts:$(ls -A .keel/artifacts 2>/dev/null)"`,
        ].join("\n"),
      ),
      env,
    );
    const [observation, artifacts] = r.stdout.split("---artifacts:");
    expect(JSON.parse(observation!), r.stderr).toMatchObject({ ok: false, code: "execution_failed" });
    const content = JSON.parse(observation!).content as string;
    expect(content).toMatch(
      /^The tool ran but its output could not be stored: Could not save \.keel\/artifacts\/\S+-full-output\.txt: the disk is full \(ENOSPC/,
    );
    expect(content).toContain("free space on that disk, then retry");
    expect(artifacts).toBe("");
  });
});

describe("keel in a read-only checkout (bwrap --ro-bind)", () => {
  it("runs a read-only call (exit 0, a warning that its events are not recorded) and refuses a write, saying the file system is read-only", async () => {
    ws = makeWorkspace({ "notes.txt": "hello\n" }, { git: true, marker: false });
    const r = await inBwrap(
      ["--ro-bind", ws.root, ws.root],
      [
        `cd ${ws.root}`,
        `$KEEL call read_file --input '{"path":"notes.txt"}'; echo "read=$?"`,
        `$KEEL --yes call write_file --input '{"path":"new.txt","content":"x"}'; echo "write=$?"`,
        '$KEEL tools >/dev/null; echo "tools=$?"',
      ].join("\n"),
      ws.env,
    );
    expect(r.stdout).toContain("hello");
    expect(r.stdout).toContain("read=0");
    expect(r.stderr).toContain(
      `keel: warning: the last events of this command are not recorded: Could not write keel's event log ${ws.root}/.keel/events.jsonl: the file system is read-only (EROFS at ${ws.root}`,
    );
    expect(r.stdout).toContain("write_file was not run: keel could not record it in its event log first");
    expect(r.stdout).toContain("the file system is read-only");
    expect(r.stdout).toContain("write=1");
    expect(r.stdout).toContain("tools=0");
    expect(existsSync(ws.path("new.txt"))).toBe(false);
    expect(existsSync(ws.path(".keel"))).toBe(false);
  });
});

describe("write_file and edit_file into a read-only folder (bwrap --ro-bind)", () => {
  it("say the file system there is read-only, naming the path as given (not keel's /proc/self/fd path), and leave the file as it was", async () => {
    ws = makeWorkspace({ "src/a.txt": "hi\n" }, { git: true });
    const call = (tool: string, input: object) => `$KEEL --yes --json call ${tool} --input '${JSON.stringify(input)}'; echo`;
    const r = await inBwrap(
      ["--ro-bind", ws.path("src"), ws.path("src")],
      [
        `cd ${ws.root}`,
        call("write_file", { path: "src/new.txt", content: "x" }),
        call("write_file", { path: "src/deeper/new.txt", content: "x" }),
        `$KEEL call read_file --input '{"path":"src/a.txt"}' >/dev/null`,
        call("edit_file", { path: "src/a.txt", old_string: "hi", new_string: "ho" }),
      ].join("\n"),
      ws.env,
    );
    const observations = r.stdout
      .trim()
      .split(/\n(?=\{)/)
      .map((o) => JSON.parse(o) as { ok: boolean; content: string; metadata: { reason?: string } });
    expect(observations.map((o) => o.content)).toEqual(
      ["src/new.txt", "src/deeper/new.txt", "src/a.txt"].map(
        (p) =>
          `Could not write ${p}: the file system there is read-only (EROFS). ${p} was left unchanged; this write cannot succeed as things stand: do not retry it, ask the user or write elsewhere.`,
      ),
    );
    expect(observations.map((o) => o.metadata.reason)).toEqual(["EROFS", "EROFS", "EROFS"]);
    expect(ws.read("src/a.txt")).toBe("hi\n");
  });
});

describe("a file where keel needs a folder", () => {
  it("`.keel` as a file: a write is refused naming the file to move away, and the file is left as it was", async () => {
    ws = makeWorkspace({ "notes.txt": "hello\n", ".keel": "mine\n" }, { git: true, marker: false });
    const r = await runKeel(["--yes", "call", "write_file", "--input", JSON.stringify({ path: "new.txt", content: "x" })], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(
      `a file stands where keel needs a folder (EEXIST: file already exists, mkdir '${ws.path(".keel")}'); move ${ws.path(".keel")} away`,
    );
    expect(ws.read(".keel")).toBe("mine\n");
    expect(ws.exists("new.txt")).toBe(false);
  });

  it("`.keel/sessions` as a file: `keel sessions list` names it and says to move it away", async () => {
    ws = makeWorkspace({ ".keel/sessions": "mine\n" }, { git: true });
    const r = await runKeel(["sessions", "list"], { cwd: ws.root, env: ws.env });
    expect(r.stderr).toContain(
      `a file stands where keel needs a folder (ENOTDIR: not a directory, scandir '${ws.path(".keel", "sessions")}'); move ${ws.path(".keel", "sessions")} away`,
    );
    expect(readFileSync(ws.path(".keel", "sessions"), "utf8")).toBe("mine\n");
    expect(readdirSync(ws.path(".keel"))).toEqual(["sessions"]);
  });
});

describe("a tool's own read that fails is not given the advice for keel's state", () => {
  it("read_file of notes.txt/x says ENOTDIR as it is, never to move notes.txt away (keel makes no folder there)", async () => {
    ws = makeWorkspace({ "notes.txt": "hello\n" }, { git: true });
    const r = await runKeel(["--json", "call", "read_file", "--input", JSON.stringify({ path: "notes.txt/x" })], { cwd: ws.root, env: ws.env });
    expect(r.json()).toMatchObject({ ok: false, code: "execution_failed" });
    expect(r.json().content).toBe(`read_file failed: ENOTDIR: not a directory, open '${ws.path("notes.txt", "x")}'`);
    expect(ws.read("notes.txt")).toBe("hello\n");
  });
});
