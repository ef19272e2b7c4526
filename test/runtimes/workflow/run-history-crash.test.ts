import { appendFileSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe("the workflow run history after keel was killed mid-append", () => {
  it("a torn last line does not swallow the next run's record", async () => {
    ws = makeWorkspace({ ".claw-workflows.json": { workflows: [{ name: "build", steps: ["Compile", "Test"] }] } });
    const keel = (...args: string[]) => runKeel(["--trust", ...args], { cwd: ws!.root, env: ws!.env });
    expect((await keel("workflow", "run", "build")).exitCode).toBe(0);
    const file = ws.path(".keel/state/workflow-runs.jsonl");
    // what a kill -9 (or a full disk) in the middle of the next append leaves: the first part of a record, no newline
    const whole = readFileSync(file, "utf8").trim();
    appendFileSync(file, whole.slice(0, Math.floor(whole.length / 2)));
    const second = await keel("--json", "workflow", "run", "build");
    expect(second.exitCode, second.stderr).toBe(0);
    const runs = await keel("--json", "workflow", "runs");
    expect(runs.exitCode, runs.stderr).toBe(0);
    // old code: the new record was glued to the torn line, and that line was skipped as torn
    expect(runs.json().runs).toHaveLength(2);
    expect(runs.json().runs.map((r: { id: string }) => r.id)).toContain(second.json().id);
  });
});
