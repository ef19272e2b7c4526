import { execa } from "execa";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { KEEL_BIN, runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

/** The reference host's example, verbatim, plus a workflow with a shell step that fails. */
const REFERENCE = {
  workflows: [
    {
      name: "review",
      description: "Review the current patch.",
      steps: [{ title: "Inspect diff", detail: "Read {path}" }, { title: "Summarize" }, "Run build"],
      prompt: "Review changes under {path}",
    },
    { name: "fails", steps: [{ id: "boom", run: "echo partial; exit 4" }, "never reached"] },
    { name: "slow", steps: [{ run: "touch started.txt && sleep 600" }, { run: "touch never.txt" }] },
  ],
};

let ws: TempWorkspace;
const keel = (...args: string[]) => runKeel(args, { cwd: ws.root, env: ws.env });

beforeAll(() => {
  ws = makeWorkspace({ ".claw-workflows.json": REFERENCE, "src/index.ts": "export {};\n" });
});
afterAll(() => ws.cleanup());

describe("keel workflow (real CLI)", () => {
  it("lists, shows and runs the reference `review` example with path=src/, rendering each step", async () => {
    const list = await keel("workflow", "list");
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toMatch(/review\s+3\s+\.claw-workflows\.json\s+Review the current patch\./);

    const show = await keel("workflow", "show", "REVIEW");
    expect(show.exitCode).toBe(0);
    expect(show.stdout).toContain("Review the current patch.");
    expect(show.stdout).toContain("1. [note] Inspect diff");
    expect(show.stdout).toContain("Review changes under {path}");

    const run = await keel("--trust", "workflow", "run", "review", "--arg", "path=src/");
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/✓ \[1\/3\] Inspect diff: Read src\/ \(\d+ ms\)/);
    expect(run.stdout).toMatch(/✓ \[2\/3\] Summarize/);
    expect(run.stdout).toMatch(/✓ \[3\/3\] Run build/);
    expect(run.stdout).toContain("Review changes under src/");
    expect(run.stdout).toMatch(/✓ Workflow review succeeded/);
    expect(run.stdout).toContain(".keel/state/workflow-runs.jsonl");

    const runs = (await keel("--json", "workflow", "runs", "--limit", "1")).json();
    expect(runs.runs).toHaveLength(1);
    expect(runs.runs[0]).toMatchObject({ workflow: "review", status: "succeeded", arguments: { path: "src/" }, prompt: "Review changes under src/" });
    expect(runs.runs[0].steps.map((s: { label: string }) => s.label)).toEqual(["Inspect diff: Read src/", "Summarize", "Run build"]);
  });

  it("exits 1 with the run record for a failing shell step; an untrusted workspace's workflows are refused with how to trust", async () => {
    const refused = await keel("workflow", "run", "fails");
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toContain("not trusted");
    expect(refused.stdout).toContain("keel trust");

    const failed = await keel("--json", "--trust", "--yes", "workflow", "run", "fails");
    expect(failed.exitCode).toBe(1);
    const record = failed.json();
    expect(record.status).toBe("failed");
    expect(record.steps.map((s: { status: string }) => s.status)).toEqual(["failed", "skipped"]);
    expect(record.steps[0].summary).toContain("exit code 4");

    const unknown = await keel("workflow", "run", "nope");
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("Known workflows: review, fails, slow");
  });

  it("Ctrl-C (SIGINT) cancels the running step, records `cancelled` and exits 1", async () => {
    const child = execa("node", [KEEL_BIN, "--trust", "--yes", "workflow", "run", "slow"], {
      cwd: ws.root,
      env: ws.env,
      extendEnv: false,
      reject: false,
      stdin: "ignore",
      timeout: 120_000,
    });
    await vi.waitFor(() => expect(ws.exists("started.txt")).toBe(true), { timeout: 60_000, interval: 20 });
    child.kill("SIGINT");
    // The step sleeps 600 s: only the SIGINT ends it within the test's timeout.
    const r = await child;
    expect(r.exitCode).toBe(1);
    expect(String(r.stdout)).toContain("Workflow slow cancelled");
    expect(ws.exists("never.txt")).toBe(false);
    const last = JSON.parse(
      readFileSync(ws.path(".keel", "state", "workflow-runs.jsonl"), "utf8")
        .trim()
        .split("\n")
        .at(-1)!,
    );
    expect(last).toMatchObject({ workflow: "slow", status: "cancelled" });
    expect(last.steps.map((s: { status: string }) => s.status)).toEqual(["cancelled", "skipped"]);
  });
});
