import { afterEach, describe, expect, it } from "vitest";
import { ensureStateDir } from "../../../core/state/state-dir.js";
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
});
