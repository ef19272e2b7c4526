import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { compileGlob } from "../../../core/glob-matcher.js";
import { makeWorkspace } from "../../helpers/temp-workspace.js";

/**
 * `*.*` on `a.` (a name with an empty extension): bash, gitignore (git's wildmatch: Claude Code's path
 * rules, ripgrep's globs) and minimatch all match it; picomatch alone does not, and only for a pattern
 * that starts with `*.` (it matches `a.` with `*a.*`, `a.*` and `src/**\/*.*`). keel follows the common
 * behaviour: a Claude `Read(*.*)` deny keeps its meaning, and `glob` finds what the shell would.
 */
const NAMES = ["a.", "a.b", "a", ".a", "a..", "b.c.", ".", "x.y.z"];
const PATTERNS = ["*.*", "*.", "a.*", "*a.*", "?.*", "*.?", "*.*."];

describe("a name with an empty extension", () => {
  it("matches as bash's pathname expansion does (names, dotfiles skipped)", () => {
    const ws = makeWorkspace(Object.fromEntries(NAMES.filter((n) => n !== ".").map((n) => [n, "x"])));
    try {
      for (const pattern of PATTERNS) {
        const out = execFileSync("bash", ["-c", `shopt -s nullglob; for f in ${pattern}; do printf '%s\\n' "$f"; done`], { cwd: ws.root, encoding: "utf8" });
        const bash = out.split("\n").filter(Boolean).sort();
        const compiled = compileGlob(pattern);
        expect("match" in compiled, pattern).toBe(true);
        if (!("match" in compiled)) continue;
        const keel = NAMES.filter((n) => n !== "." && compiled.match(n)).sort();
        expect(keel, pattern).toEqual(bash);
      }
      expect((compileGlob("*.*") as { match: (s: string) => boolean }).match("a.")).toBe(true);
    } finally {
      ws.cleanup();
    }
  });

  it("matches as a .gitignore line does (paths, dotfiles included): the syntax Claude Code's path rules use", () => {
    const ws = makeWorkspace({}, { git: true });
    try {
      for (const pattern of PATTERNS) {
        ws.write(".gitignore", `/${pattern}\n`);
        const names = NAMES.filter((n) => n !== ".");
        // check-ignore prints the ignored ones and exits 1 when none is.
        let out = "";
        try {
          out = execFileSync("git", ["check-ignore", "--no-index", ...names], { cwd: ws.root, encoding: "utf8" });
        } catch (e) {
          out = String((e as { stdout?: string }).stdout ?? "");
        }
        const git = out.split("\n").filter(Boolean).sort();
        const compiled = compileGlob(pattern, { dot: true });
        if (!("match" in compiled)) throw new Error(`${pattern} did not compile`);
        expect(names.filter((n) => compiled.match(n)).sort(), pattern).toEqual(git);
      }
    } finally {
      ws.cleanup();
    }
  });
});
