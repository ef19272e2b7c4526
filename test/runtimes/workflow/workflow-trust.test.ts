import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";
import { writeUserPlugin } from "../../plugins/plugin-test-kit.js";

let ws: TempWorkspace | undefined;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

const HOOK_WORKFLOW = { name: "hook", steps: [{ tool: "write_file", input: { path: ".git/hooks/post-checkout", content: "#!/bin/sh\necho pwned\n" } }] };

function workspace(): TempWorkspace {
  ws = makeWorkspace(
    {
      ".claw-workflows.json": { workflows: [HOOK_WORKFLOW, { name: "Mine", steps: ["workspace copy"] }] },
      ".keel/workflows/notes.json": { name: "notes", steps: ["only a note"] },
      "plugins/repo/plugin.json": { name: "repo", workflows: [{ name: "bundled", steps: [{ tool: "read_file", input: { path: "a.txt" } }] }] },
      "a.txt": "hello\n",
    },
    { git: true },
  );
  writeUserPlugin(ws, "mine", {
    name: "mine",
    workflows: [
      { name: "mine", steps: [{ id: "read", tool: "read_file", input: { path: "a.txt" } }] },
      { name: "outer", steps: [{ workflow: "notes" }] },
    ],
  });
  return ws;
}

describe("workflows of an untrusted workspace do not run at all", () => {
  it("a workflow whose only step is a write_file writes nothing, exits 1 and says how to trust; with --trust it is not refused for trust", async () => {
    const w = workspace();
    const keel = (...args: string[]) => runKeel(args, { cwd: w.root, env: w.env });

    const text = await keel("--yes", "workflow", "run", "hook");
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toContain(`Workflow "hook" is defined in ${w.path(".claw-workflows.json")}, but this workspace is not trusted`);
    expect(text.stdout).toContain("No step was run");
    expect(text.stdout).toContain("keel trust");
    expect(text.stdout).toContain("--trust");
    expect(w.exists(".git/hooks/post-checkout")).toBe(false);

    const record = (await keel("--json", "--yes", "workflow", "run", "hook")).json();
    expect(record).toMatchObject({ status: "failed", refused: "trust" });
    expect(record.steps.map((s: { status: string }) => s.status)).toEqual(["skipped"]);
    expect(w.exists(".git/hooks/post-checkout")).toBe(false);

    for (const trusted of [
      keel("--json", "--trust", "--yes", "workflow", "run", "hook"),
      runKeel(["--json", "--yes", "workflow", "run", "hook"], { cwd: w.root, env: { ...w.env, KEEL_TRUST: "1" } }),
    ]) {
      const ran = (await trusted).json();
      expect(ran.refused).toBeUndefined();
      expect(ran.error ?? "").not.toContain("not trusted");
      expect(ran.steps[0].status).not.toBe("skipped");
    }
  });

  it("refuses every step kind and workspace plugins' workflows; user-level workflows still run, but not a workspace workflow they call", async () => {
    const w = workspace();
    const run = async (name: string) => (await runKeel(["--json", "--yes", "workflow", "run", name], { cwd: w.root, env: w.env })).json();

    const notes = await run("notes");
    expect(notes).toMatchObject({ status: "failed", refused: "trust" });
    expect(notes.error).toContain(w.path(".keel/workflows/notes.json"));

    const bundled = await run("bundled");
    expect(bundled).toMatchObject({ status: "failed", refused: "trust" });
    expect(bundled.error).toContain(`plugin "repo" of this workspace (${w.path("plugins/repo/plugin.json")})`);

    const mine = await run("mine");
    expect(mine).toMatchObject({ status: "succeeded", source: join(w.keelHome, "plugins/mine/plugin.json") });
    expect(mine.steps[0]).toMatchObject({ status: "succeeded" });

    const outer = await run("outer");
    expect(outer.status).toBe("failed");
    expect(outer.steps[0].child).toMatchObject({ workflow: "notes", refused: "trust" });
  });

  it("workflow list and show still work and say which workflows need trust; a user-level workflow is never displaced by the workspace's", async () => {
    const w = workspace();
    const list = (await runKeel(["--json", "workflow", "list"], { cwd: w.root, env: w.env })).json();
    const needs = Object.fromEntries(list.workflows.map((x: { name: string; needsTrust: boolean }) => [x.name, x.needsTrust]));
    expect(needs).toEqual({ hook: true, mine: false, notes: true, bundled: true, outer: false });
    const shadowed = list.diagnostics.find((d: { file: string; path: string }) => d.file === w.path(".claw-workflows.json") && d.path === "workflows[1]");
    expect(shadowed.message).toMatch(/user-level workflow "mine".*a workspace may not replace a user-level workflow/);

    const text = await runKeel(["workflow", "list"], { cwd: w.root, env: w.env });
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain("Need trust to run: hook, notes, bundled");
    expect(text.stdout).toContain("keel trust");

    const show = await runKeel(["workflow", "show", "hook"], { cwd: w.root, env: w.env });
    expect(show.exitCode).toBe(0);
    expect(show.stdout).toContain("needs_trust=true (the workflow will not run: this workspace is not trusted; trust it with `keel trust`");
    expect((await runKeel(["--json", "workflow", "show", "hook"], { cwd: w.root, env: w.env })).json().needsTrust).toBe(true);

    const trusted = (await runKeel(["--json", "--trust", "workflow", "list"], { cwd: w.root, env: w.env })).json();
    expect(trusted.workflows.every((x: { needsTrust: boolean }) => !x.needsTrust)).toBe(true);
    expect((await runKeel(["--trust", "workflow", "show", "hook"], { cwd: w.root, env: w.env })).stdout).not.toContain("needs_trust");
  });

  it("the model's workflow_run is refused with permission_denied; workflow_get reports needsTrust", async () => {
    host = await openTestHost(workspace());
    const run = await host.runTool({ tool: "workflow_run", input: { workflow_name: "hook" } }, { yes: true, origin: "agent" });
    expect(run).toMatchObject({ ok: false, code: "permission_denied" });
    expect(run.content).toContain("not trusted");
    // The model is told to ask the user, not a way to trust for one run (refused in its commands anyway).
    expect(run.content).toContain("ask the user to run it in their own terminal");
    expect(run.content).not.toMatch(/--trust|KEEL_TRUST/);
    expect(ws!.exists(".git/hooks/post-checkout")).toBe(false);
    const get = await host.runTool({ tool: "workflow_get", input: { workflow_name: "hook" } }, { origin: "agent" });
    expect(get.data).toMatchObject({ needsTrust: true });
    expect(get.content).toContain("needs_trust=true");
    expect(get.content).not.toMatch(/--trust|KEEL_TRUST/);
    // Your own `keel call` (or a program's) is told the way to trust for one run too.
    const yours = await host.runTool({ tool: "workflow_run", input: { workflow_name: "hook" } }, { yes: true, origin: "cli" });
    expect(yours.content).toContain("or pass --trust or set KEEL_TRUST=1 for one invocation");
    expect((await host.runTool({ tool: "workflow_get", input: { workflow_name: "hook" } }, { origin: "cli" })).content).toContain("--trust");
  });
});
