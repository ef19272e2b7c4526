import { mkdirSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe("a worktree workflow in a workspace that is a subfolder of the repository", () => {
  it("runs its steps in that subfolder of the worktree and merges there", async () => {
    ws = makeWorkspace(
      {
        "pkg/a.txt": "a\n",
        "pkg/.claw-workflows.json": {
          workflows: [
            {
              name: "sub",
              worktree: true,
              onFinish: "merge",
              steps: [
                { tool: "write_file", input: { path: "p.txt", content: "x\n" } },
                { id: "where", run: "pwd" },
              ],
            },
          ],
        },
      },
      { git: true },
    );
    mkdirSync(ws.path("pkg", ".keel"));
    const run = await runKeel(["--trust", "--yes", "--json", "workflow", "run", "sub"], { cwd: ws.path("pkg"), env: ws.env });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const record = run.json();
    expect(record.steps[1].summary).toContain(`${record.worktree.path}/pkg`);
    expect(ws.read("pkg/p.txt")).toBe("x\n");
    expect(ws.exists("p.txt")).toBe(false);
  });
});
