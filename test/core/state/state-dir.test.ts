import { mkdirSync, symlinkSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { ensureStateDir, KEEL_GITIGNORE } from "../../../core/state/state-dir.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

describe(".keel/.gitignore", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });

  it("keeps runtime state out of git but leaves workflows and declared teams committable", () => {
    ws = makeWorkspace({}, { git: true });
    ensureStateDir(ws.path(".keel"), "state");
    ws.write(".keel/state/tasks.json", "{}");
    ws.write(".keel/sessions/s1/state.json", "{}");
    ws.write(".keel/worktrees/w/file.txt", "x");
    ws.write(".keel/config.local.json", "{}");
    ws.write(".keel/workflows/review.json", "{}");
    ws.write(".keel/teams.json", "{}");
    const untracked = ws
      .git("status", "--porcelain", "--untracked-files=all")
      .split("\n")
      .filter(Boolean)
      .map((l) => l.slice(3))
      .sort();
    expect(untracked).toEqual([".keel/teams.json", ".keel/workflows/review.json"]);
  });

  it("a committed .keel/.gitignore that lets keel's state into git gets a warning; keel's own (or an edited one that still ignores it) none", async () => {
    const warnings = async (w: TempWorkspace) => {
      const r = await runKeel(["--json", "tools"], { cwd: w.root, env: w.env });
      return (r.json().diagnostics as { source: string; message: string }[]).filter((d) => d.source === "state").map((d) => d.message);
    };
    const untracked = (w: TempWorkspace) => w.git("status", "--porcelain", "--untracked-files=all").split("\n").filter(Boolean);
    const cases: [string, string | "link", boolean][] = [
      ["keel's own", KEEL_GITIGNORE, false],
      ["edited, still ignoring everything", `/*\n!workflows/\n# mine\n!teams.json\n`, false],
      ["empty", "", true],
      ["brings it all back", `${KEEL_GITIGNORE}!*\n`, true],
      ["a link (git reads no .gitignore through a link)", "link", true],
    ];
    for (const [name, text, warned] of cases) {
      ws = makeWorkspace({ "x.txt": "x" }, { git: true });
      if (text === "link") {
        ws.write("ignore-all", "*\n");
        mkdirSync(ws.path(".keel"));
        symlinkSync("../ignore-all", ws.path(".keel/.gitignore"));
      } else ws.write(".keel/.gitignore", text);
      ws.git("add", "-A");
      ws.git("add", "-f", ".keel/.gitignore"); // committed by the repository (keel's own ignores itself)
      ws.git("commit", "-qm", "repo");
      ws.write(".keel/sessions/s1/events.jsonl", "{}\n");
      // What the warning is about: with the repository's file, the session shows as a new file for `git add .`.
      expect(
        untracked(ws).some((l) => l.includes(".keel/sessions/s1/events.jsonl")),
        name,
      ).toBe(warned);
      const got = await warnings(ws);
      // Old code: no warning, whatever the file said.
      if (warned) {
        expect(got, name).toEqual([expect.stringMatching(/does not keep keel.s state out of git|cannot tell whether it keeps/)]);
        // ...and said before a run (which then stops here: no model is configured).
        const run = await runKeel(["run", "hi"], { cwd: ws.root, env: ws.env });
        expect(run.stderr, name).toContain("keel: warning [state]");
      } else expect(got, name).toEqual([]);
      ws.cleanup();
      ws = undefined;
    }
  });
});
