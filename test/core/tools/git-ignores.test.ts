import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

/** A git repository with a private global excludes file (`$XDG_CONFIG_HOME/git/ignore`), never the developer's. */
function repo(files: Record<string, string>, globalIgnore = ""): TempWorkspace {
  ws = makeWorkspace(files, { git: true });
  const xdg = join(ws.root, "..", "xdg");
  mkdirSync(join(xdg, "git"), { recursive: true });
  writeFileSync(join(xdg, "git", "ignore"), globalIgnore);
  ws.env.XDG_CONFIG_HOME = xdg;
  return ws;
}

async function call(tool: string, input: object): Promise<any> {
  const run = await runKeel(["call", tool, "--json", "--input", JSON.stringify(input)], { cwd: ws.root, env: ws.env });
  return run.json();
}

/** What git itself lists: tracked and untracked files that are not ignored. */
function gitFiles(): string[] {
  const out = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: ws.root,
    encoding: "utf8",
    env: { ...ws.env, GIT_CONFIG_NOSYSTEM: "1" },
  });
  return out
    .split("\n")
    .filter((f) => f !== "")
    .sort();
}

const FILES: Record<string, string> = {
  ".gitignore": [
    "# build output",
    "dist/",
    "*.log",
    "!keep.log",
    "/anchored.txt",
    "docs/**/*.tmp",
    "cache/**",
    "!cache/.keep",
    "[Bb]ak*",
    "data[!0-9].csv",
    "\\#hash",
    "{a,b}.txt",
    "trailing.txt   ",
    "tmp/*",
    "!tmp/wanted",
    "",
  ].join("\n"),
  "dist/a.js": "needle\n",
  "src/dist": "needle (a file named dist: a dir-only rule leaves it)\n",
  "src/a.log": "needle\n",
  "src/keep.log": "needle\n",
  "anchored.txt": "needle\n",
  "src/anchored.txt": "needle\n",
  "docs/x/y/z.tmp": "needle\n",
  "docs/z.tmp": "needle\n",
  "docs/readme.md": "needle\n",
  "cache/a/b.bin": "needle\n",
  "cache/.keep": "needle\n",
  "Bak1.txt": "needle\n",
  "bakery/oven.ts": "needle\n",
  "datax.csv": "needle\n",
  "data1.csv": "needle\n",
  "#hash": "needle\n",
  "{a,b}.txt": "needle\n",
  "a.txt": "needle\n",
  "trailing.txt": "needle\n",
  "tmp/wanted": "needle\n",
  "tmp/unwanted": "needle\n",
  "src/main.ts": "needle\n",
  "src/sub/.gitignore": "gen.ts\n!/b.log\n",
  "src/sub/gen.ts": "needle\n",
  "src/sub/b.log": "needle\n",
  "src/sub/deeper/gen.ts": "needle\n",
  "src/sub/ok.ts": "needle\n",
};

describe("glob and grep follow .gitignore as git does", () => {
  it("lists exactly the files git lists (nested files, negation, anchors, dir-only, **, classes, escapes, info/exclude, global excludes)", async () => {
    repo(FILES, "*.bak\n");
    ws.write(".git/info/exclude", "*.secret\n");
    // Untracked (git lists a tracked file whatever the rules say; keel, like ripgrep, reads no index).
    ws.write("local.secret", "needle\n");
    ws.write("global.bak", "needle\n");
    const expected = gitFiles();
    // The comparison means something only if the rules did leave files out.
    expect(expected).not.toContain("dist/a.js");
    expect(expected).toContain("src/keep.log");
    const glob = await call("glob", { pattern: "**/*" });
    expect(glob.ok).toBe(true);
    expect(glob.data.paths).toEqual(expected);
    const grep = await call("grep", { pattern: "needle", max_results: 1000 });
    expect(grep.data.matches.map((m: { file: string }) => m.file).sort()).toEqual(expected.filter((f) => !f.endsWith(".gitignore")));
  });

  it("searches ignored files with include_ignored, and an ignored folder named as the search path", async () => {
    repo(FILES);
    const all = await call("glob", { pattern: "**/*.js", include_ignored: true });
    expect(all.data.paths).toEqual(["dist/a.js"]);
    const none = await call("glob", { pattern: "**/*.js" });
    expect(none.data.paths).toEqual([]);
    expect(none.content).toBe(
      'No files match "**/*.js" under the current folder (.). 3 folder(s) or file(s) ignored by .gitignore (or .ignore, .rgignore) were not searched; pass include_ignored: true to search them too.',
    );
    const grep = await call("grep", { pattern: "needle", path: "src/sub", include_ignored: true });
    expect(grep.data.matches.map((m: { file: string }) => m.file).sort()).toEqual([
      "src/sub/b.log",
      "src/sub/deeper/gen.ts",
      "src/sub/gen.ts",
      "src/sub/ok.ts",
    ]);
    const named = await call("grep", { pattern: "needle", path: "dist" });
    expect(named.data.matches).toEqual([{ file: "dist/a.js", line: 1, text: "needle" }]);
    // keel's own `.keel/.gitignore` (`*`) keeps its state out of git, not out of a search pointed inside `.keel`
    ws.write(".keel/.gitignore", "*\n");
    ws.write(".keel/artifacts/out.txt", "needle\n");
    const own = await call("grep", { pattern: "needle", path: ".keel/artifacts" });
    expect(own.data.matches).toEqual([{ file: ".keel/artifacts/out.txt", line: 1, text: "needle" }]);
  });

  it("applies no .gitignore outside a git repository, and none from above a nested repository", async () => {
    // a folder of clones that is no repository itself: each clone's rules apply inside it, the top .gitignore nowhere
    ws = makeWorkspace({ ".gitignore": "*.log\n", "a.log": "needle\n", "app/.gitignore": "dist/\n", "app/dist/x.log": "n\n", "app/y.log": "n\n" });
    ws.write("app/.git/HEAD", "ref: refs/heads/main\n");
    expect((await call("glob", { pattern: "**/*.log" })).data.paths).toEqual(["a.log", "app/y.log"]);
    ws.cleanup();
    repo({ ".gitignore": "*.log\n", "a.log": "needle\n", "vendor/lib/.gitignore": "*.tmp\n", "vendor/lib/x.log": "n\n", "vendor/lib/y.tmp": "n\n" });
    ws.write("vendor/lib/.git/HEAD", "ref: refs/heads/main\n");
    // the sandbox's empty `.git` placeholder is no repository (git looks past it): the rules above still apply
    mkdirSync(ws.path("sandboxed/.git"), { recursive: true });
    ws.write("sandboxed/z.log", "n\n");
    expect((await call("glob", { pattern: "**/*.{log,tmp}" })).data.paths).toEqual(["vendor/lib/x.log"]);
  });

  it(".ignore and .rgignore apply as in ripgrep: over every git rule, .rgignore over .ignore, each deepest first", async () => {
    repo({
      ".gitignore": "*.log\n",
      ".ignore": "!keep.log\n*.gen.ts\n",
      "sub/.rgignore": "!x.gen.ts\n",
      "sub/deep/.gitignore": "!y.gen.ts\n",
      "a.log": "n\n",
      "keep.log": "n\n",
      "a.gen.ts": "n\n",
      "b.ts": "n\n",
      "sub/x.gen.ts": "n\n",
      "sub/deep/y.gen.ts": "n\n",
    });
    // old code: keep.log ignored (.gitignore), a.gen.ts and sub/deep/y.gen.ts listed
    expect((await call("glob", { pattern: "**/*.{log,ts}" })).data.paths).toEqual(["b.ts", "keep.log", "sub/x.gen.ts"]);
    const grep = await call("grep", { pattern: "n", glob: "**/*.ts" });
    expect(grep.data.matches.map((m: { file: string }) => m.file).sort()).toEqual(["b.ts", "sub/x.gen.ts"]);
    expect((await call("glob", { pattern: "**/*.{log,ts}", include_ignored: true })).data.paths).toHaveLength(6);
  });

  it("applies .ignore and .rgignore outside a git repository too, those of the folders above the one searched included", async () => {
    ws = makeWorkspace({
      ".gitignore": "*.md\n",
      ".ignore": "build/\n*.gen\n",
      "src/.rgignore": "*.tmp\n",
      "x.md": "n\n",
      "build/a.js": "n\n",
      "src/a.tmp": "n\n",
      "src/b.js": "n\n",
      "src/c.gen": "n\n",
    });
    expect((await call("glob", { pattern: "**/*.{js,md,tmp,gen}" })).data.paths).toEqual(["src/b.js", "x.md"]);
    expect((await call("glob", { pattern: "*", path: "src" })).data.paths).toEqual(["src/.rgignore", "src/b.js"]);
  });

  it("reads no .gitignore through a link or from a FIFO, and a hostile pattern cannot hang the walk", async () => {
    repo({ "outside.txt": "*.ts\n", "a.ts": "needle\n", "sub/b.ts": "needle\n", [`${"a".repeat(200)}.md`]: "needle\n" });
    symlinkSync(ws.path("outside.txt"), ws.path(".gitignore"));
    execFileSync("mkfifo", [ws.path("sub/.gitignore")]);
    expect((await call("glob", { pattern: "**/*.ts" })).data.paths).toEqual(["a.ts", "sub/b.ts"]);
    // at most 1000 patterns of one file apply: each costs every walked path a match
    ws.write("many/.gitignore", Array.from({ length: 1000 }, (_, i) => `never-${i}`).join("\n") + "\n*.log\n");
    ws.write("many/a.log", "needle\n");
    expect((await call("glob", { pattern: "many/*.log" })).data.paths).toEqual(["many/a.log"]);
    ws.write("deep/.gitignore", `${"*a".repeat(40)}*b\n`);
    ws.write(`deep/${"a".repeat(250)}`, "needle\n");
    expect((await call("glob", { pattern: "deep/a*" })).data.paths).toEqual([`deep/${"a".repeat(250)}`]);
  });

  it("a repository with a 1,000-line .ignore in each of many folders cannot fill keel's heap: past 50,000 patterns a walk applies no more, and says so", async () => {
    // 4,000 such folders ended keel with "JavaScript heap out of memory" (about a kilobyte per compiled pattern, all
    // cached for the walk). Here 60 folders of 1,000 patterns each: 50 apply, the other 10 are searched and named.
    const files: Record<string, string> = {};
    for (let d = 0; d < 60; d++) {
      files[`d${d}/.ignore`] = [...Array.from({ length: 999 }, (_, i) => `never-${d}-${i}`), "hidden.txt"].join("\n") + "\n";
      files[`d${d}/hidden.txt`] = "needle\n";
    }
    ws = makeWorkspace(files);
    const grep = await call("grep", { pattern: "needle", output_mode: "files_with_matches" });
    expect(grep.content).toContain("[10 ignore file(s) (.gitignore, .ignore, .rgignore) were not applied");
    expect(grep.content.split("\n").filter((l: string) => l.endsWith("hidden.txt"))).toHaveLength(10);
    const glob = await call("glob", { pattern: "**/hidden.txt" });
    expect(glob.data).toMatchObject({ unappliedIgnoreFiles: 10 });
    expect(grep.data).toMatchObject({ unappliedIgnoreFiles: 10 });
    expect(glob.data.paths).toHaveLength(10);
    expect(glob.content).toContain("[10 ignore file(s) (.gitignore, .ignore, .rgignore) were not applied");
    // a narrower path walks fewer folders: each one's own rules apply again
    expect((await call("glob", { pattern: "**/hidden.txt", path: "d59" })).data.paths).toEqual([]);
  });

  it("a folder applies at most 4,000 ignore patterns, its own and those above it: nested long .ignore files cannot freeze a walk", async () => {
    // Every entry is matched against every pattern above it, synchronously: fifty nested 1,000-line .ignore files
    // froze keel for 70 s on 5,000 files (no Ctrl-C, no timeout). Here five levels: the fifth file is not applied.
    const files: Record<string, string> = {};
    const deepest = "a/b/c/d";
    ["", "a/", "a/b/", "a/b/c/", "a/b/c/d/"].forEach((dir, k) => {
      files[`${dir}.ignore`] = [...Array.from({ length: 999 }, (_, i) => `never-${k}-${i}*`), `hidden-${k}.txt`].join("\n") + "\n";
      files[`${deepest}/hidden-${k}.txt`] = "needle\n";
    });
    ws = makeWorkspace(files);
    const glob = await call("glob", { pattern: "**/hidden-*.txt" });
    expect(glob.data.paths).toEqual([`${deepest}/hidden-4.txt`]);
    expect(glob.content).toContain("[1 ignore file(s) (.gitignore, .ignore, .rgignore) were not applied");
    // searched from a deeper folder, the same rules apply: those of the folders above it count
    expect((await call("grep", { pattern: "needle", path: deepest, output_mode: "files_with_matches" })).content).toContain("hidden-4.txt");
  });

  it("a committed .gitignore line of 256 KiB of spaces (or of `[`s) cannot freeze the walk: its other lines still apply", async () => {
    // Trailing spaces were cut with a regex that tried every space as a start: about half a minute per such file,
    // synchronously (no Ctrl-C), here eight of them. Now one pass each; the safety net is the test timeout.
    const max = 256 * 1024;
    const files: Record<string, string> = {};
    for (let i = 0; i < 8; i++) {
      files[`d${i}/.gitignore`] = "*.log\n" + "x" + " ".repeat(max - 10) + "y\n";
      files[`d${i}/a.log`] = "n\n";
      files[`d${i}/a.txt`] = "n\n";
    }
    files["b/.gitignore"] = "*.log\n" + "[".repeat(max - 10) + "\n";
    files["b/a.log"] = "n\n";
    files["b/a.txt"] = "n\n";
    repo(files);
    const paths = (await call("glob", { pattern: "**/a.*" })).data.paths;
    expect(paths).toEqual(["b/a.txt", ...Array.from({ length: 8 }, (_, i) => `d${i}/a.txt`)]);
    expect(paths).toEqual(gitFiles().filter((f) => f.endsWith("a.txt") || f.endsWith("a.log")));
  });

  it("takes core.excludesFile from your own ~/.gitconfig (a linked file, as dotfile managers make), never from the repository's config", async () => {
    repo({ "a.swp": "n\n", "b.ts": "n\n", "c.md": "n\n" });
    const home = join(ws.root, "..", "home");
    mkdirSync(join(home, "dotfiles"), { recursive: true });
    writeFileSync(join(home, "dotfiles", "gitignore"), "*.swp\n");
    symlinkSync(join(home, "dotfiles", "gitignore"), join(home, ".gitignore_global"));
    writeFileSync(join(home, ".gitconfig"), '[user]\n\tname = x\n[core]\n\teditor = vi\n\texcludesFile = "~/.gitignore_global" ; mine\n');
    ws.env.HOME = home;
    delete ws.env.XDG_CONFIG_HOME;
    ws.write("repo-excludes", "*.md\n");
    ws.git("config", "core.excludesFile", ws.path("repo-excludes"));
    expect((await call("glob", { pattern: "*.{swp,ts,md}" })).data.paths).toEqual(["b.ts", "c.md"]);
  });

  it("reads GIT_CONFIG_GLOBAL in place of ~/.gitconfig, as git does; a comment needs no blank before it", async () => {
    repo({ "a.swp": "n\n", "b.ts": "n\n", "c.md": "n\n" });
    const home = join(ws.root, "..", "home");
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, "md-ignore"), "*.md\n");
    writeFileSync(join(home, "swp-ignore"), "*.swp\n");
    writeFileSync(join(home, ".gitconfig"), "[core]\n\texcludesFile = ~/swp-ignore\n");
    // git reads `~/md-ignore` here: `;` starts a comment anywhere outside quotes. A long line is read in one pass.
    writeFileSync(join(home, "other-config"), `[core]\n\texcludesFile = ~/nothing${" ".repeat(200_000)}x\n\texcludesFile = ~/md-ignore;mine\n`);
    ws.env.HOME = home;
    ws.env.GIT_CONFIG_GLOBAL = join(home, "other-config");
    delete ws.env.XDG_CONFIG_HOME;
    expect((await call("glob", { pattern: "*.{swp,ts,md}" })).data.paths).toEqual(["a.swp", "b.ts"]);
  });
});
