import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const keel = (w: TempWorkspace, ...args: string[]) => runKeel(args, { cwd: w.root, env: w.env });

describe("keel workflow run with onFinish merge", () => {
  it("a refused merge advises commands that do merge the workflow's worktree", async () => {
    ws = makeWorkspace(
      {
        "a.txt": "a\n",
        ".claw-workflows.json": {
          workflows: [{ name: "mw", worktree: true, onFinish: "merge", steps: [{ tool: "write_file", input: { path: "out.txt", content: "done\n" } }] }],
        },
      },
      { git: true },
    );
    ws.write("a.txt", "dirty\n");
    const run = await keel(ws, "--trust", "--yes", "--json", "workflow", "run", "mw");
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    const record = run.json();
    const name = record.worktree.name as string;
    const message = record.worktree.result.message as string;
    expect(message).toContain(`\`keel worktree enter ${name}\` then \`keel worktree exit --action merge\``);

    // Following the advice works.
    ws.git("checkout", "--", "a.txt");
    expect((await keel(ws, "worktree", "enter", name)).exitCode).toBe(0);
    const merged = await keel(ws, "worktree", "exit", "--action", "merge");
    expect(merged.exitCode, merged.stdout + merged.stderr).toBe(0);
    expect(ws.read("out.txt")).toBe("done\n");
  });
});

describe("keel workflow list QUERY", () => {
  it("says no workflow matches when workflows exist but none matches the query", async () => {
    ws = makeWorkspace({ ".claw-workflows.json": { workflows: [{ name: "build", steps: [{ run: "true" }] }] } });
    const r = await keel(ws, "workflow", "list", "zzz");
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('No workflow matches "zzz"');
    expect(r.stdout).not.toContain("Add .claw-workflows.json");
    const all = await keel(ws, "workflow", "list");
    expect(all.stdout).toContain("build");
  });
});
