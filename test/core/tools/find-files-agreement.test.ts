import { mkdirSync, symlinkSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { glob } from "tinyglobby";
import { DEFAULT_IGNORES, findFiles } from "../../../core/tools/find-files.js";
import { globWalkPlan } from "../../../core/glob/walk-plan.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

/** A tree with dot files, nesting, ignored folders at several depths, a worktree's `.git` file and symlinks. */
const TREE = [
  "README.md",
  ".env",
  ".eslintrc.json",
  "package.json",
  "a/x.js",
  "a/.hidden.js",
  "a/deep/y.js",
  "b/z.js",
  "b/test-one.js",
  "src/index.ts",
  "src/util.ts",
  "src/lib/parse.ts",
  "src/lib/test-parse.js",
  "src/lib/deep/er/most.ts",
  "src/.config/settings.json",
  "src/{x}.ts",
  "docs/guide.md",
  "docs/api/index.md",
  "test/test-a.js",
  "test/fixtures/test-b.js",
  "node_modules/pkg/index.js",
  "src/node_modules/inner/index.ts",
  ".git/HEAD",
  ".git/objects/ab/cdef",
  "worktree/.git",
  "worktree/main.ts",
  ".keel/state/x.json",
  "packages/p1/.keel/y.ts",
  "packages/p1/src/mod.ts",
];

const PATTERNS = [
  "**/*",
  "**",
  "*",
  "**/*.ts",
  "*.md",
  "**/*.md",
  "src/**",
  "src/**/*",
  "src/**/*.ts",
  "./src/**/*.ts",
  "src/lib/*.ts",
  "src/*",
  "src/",
  "{a,b}/*.js",
  "{a,b/deep}/*.js",
  "**/test-*.js",
  "README.md",
  "docs/api/index.md",
  ".env",
  ".*",
  "**/.*",
  "*/*/*.ts",
  "?/*.js",
  "[ab]/*.js",
  "src/[a-m]*.ts",
  "src/[^i]*.ts",
  "**/deep/**",
  "src/**/deep/**/*.ts",
  "src//lib/*.ts",
  "src/{x}.ts",
  "node_modules/**",
  "**/node_modules/**/*.ts",
  ".git/*",
  "worktree/*",
  "packages/*/src/*.ts",
  "link*",
  "linkdir/*",
  "missing/**/*.ts",
  "",
  "src/@(lib|util)*",
];

let ws: TempWorkspace;
beforeAll(() => {
  ws = makeWorkspace(Object.fromEntries(TREE.map((p) => [p, `${p}\n`])), { marker: false });
  mkdirSync(ws.path("empty/dir"), { recursive: true });
  symlinkSync(ws.path("src"), ws.path("linkdir"));
  symlinkSync(ws.path("README.md"), ws.path("linkfile.md"));
});
afterAll(() => ws.cleanup());

/** What findFiles returned before it matched in linear time: tinyglobby with the same options. */
async function reference(pattern: string, onlyFiles: boolean, includeIgnored: boolean): Promise<string[]> {
  const found = await glob(pattern, {
    cwd: ws.root,
    dot: true,
    followSymbolicLinks: false,
    onlyFiles,
    ignore: includeIgnored ? [] : DEFAULT_IGNORES,
    expandDirectories: false,
  });
  return found.sort();
}

describe("findFiles agrees with tinyglobby (what it used before) on ordinary patterns", () => {
  for (const [onlyFiles, includeIgnored] of [
    [true, false],
    [true, true],
    [false, false],
  ] as const) {
    it(`onlyFiles: ${onlyFiles}, includeIgnored: ${includeIgnored}`, async () => {
      const disagreements: string[] = [];
      for (const pattern of PATTERNS) {
        const ours = await findFiles(ws.root, pattern, { onlyFiles, includeIgnored });
        const theirs = await reference(pattern, onlyFiles, includeIgnored);
        if (JSON.stringify(ours) !== JSON.stringify(theirs))
          disagreements.push(`${pattern}: ours ${JSON.stringify(ours)}, tinyglobby ${JSON.stringify(theirs)}`);
      }
      expect(disagreements).toEqual([]);
    });
  }

  it("the comparison is not vacuous: patterns find what they name, and ignored folders stay out", async () => {
    expect(await findFiles(ws.root, "src/lib/*.ts")).toEqual(["src/lib/parse.ts"]);
    expect(await findFiles(ws.root, "{a,b}/*.js")).toEqual(["a/.hidden.js", "a/x.js", "b/test-one.js", "b/z.js"]);
    const all = await findFiles(ws.root, "**/*");
    expect(all).toContain(".env");
    expect(all.filter((p) => /(^|\/)(\.git|node_modules|\.keel)(\/|$)/.test(p))).toEqual([]);
    expect(all.filter((p) => p.startsWith("link"))).toEqual([]);
    expect(await findFiles(ws.root, "**/*.ts", { includeIgnored: true })).toContain("src/node_modules/inner/index.ts");
  });
});

describe("findFiles refuses what it cannot match in bounded time, before walking", () => {
  it("an extglob RE2 cannot run is a ToolError naming the supported syntax", async () => {
    await expect(findFiles(ws.root, "src/!(lib)/*.ts")).rejects.toMatchObject({
      code: "execution_failed",
      message: expect.stringContaining("Supported: * (within a name), ** (any depth of folders), ? (one character), [abc], [a-z], [^a] and {a,b}"),
    });
    await expect(findFiles(ws.root, "../**")).rejects.toMatchObject({ code: "permission_denied" });
  });

  it("an aborted signal ends the walk with the abort reason", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(findFiles(ws.root, "**/*", { signal: controller.signal })).rejects.toThrow("stop");
  });
});

describe("globWalkPlan: where the walk starts and how deep it goes", () => {
  it("starts at the literal prefix and bounds the depth of a pattern without **", () => {
    expect(globWalkPlan("src/lib/**/*.ts")).toMatchObject({ base: ["src", "lib"], depth: undefined });
    expect(globWalkPlan("./src/lib/*.ts")).toMatchObject({ pattern: "src/lib/*.ts", base: ["src", "lib"], depth: 1 });
    expect(globWalkPlan("README.md")).toMatchObject({ base: [], depth: 1 });
    expect(globWalkPlan("*/*/*.ts")).toMatchObject({ base: [], depth: 3 });
    expect(globWalkPlan("{a,b/deep}/*.js")).toMatchObject({ base: [], depth: 3 });
    expect(globWalkPlan("docs/{a,b}/x/*.md")).toMatchObject({ base: ["docs"], depth: 3 });
    expect(globWalkPlan("src/")).toMatchObject({ pattern: "src", base: [], depth: 1 });
    // Syntax matched through RE2 is not bounded here.
    expect(globWalkPlan("src/@(a|b)/*")).toMatchObject({ base: ["src"], depth: undefined });
  });
});
