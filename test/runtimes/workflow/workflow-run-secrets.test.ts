import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const TOKEN = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";

describe("a workflow run given a secret as an argument (real CLI)", () => {
  it("keeps it out of the run record in .keel/ (arguments, rendered commands, labels, prompt, nested runs): shown as ***", async () => {
    ws = makeWorkspace({
      ".claw-workflows.json": {
        workflows: [
          {
            name: "deploy",
            prompt: "Deploy with {token}",
            steps: [
              "Deploying with {token}",
              { id: "push", run: "echo pushing {token} >/dev/null" },
              { tool: "bash", input: { command: "test -n {token}" } },
              { workflow: "inner", arguments: { t: "{token}" } },
            ],
          },
          { name: "inner", steps: [{ run: "test -n {t}" }] },
        ],
      },
    });
    const env = { ...ws.env, GITHUB_TOKEN: TOKEN };
    const run = await runKeel(["--trust", "--yes", "--json", "workflow", "run", "deploy", "--arg", `token=${TOKEN}`], { cwd: ws.root, env });
    expect(run.exitCode, run.stderr).toBe(0);
    const kept = ws.read(".keel/state/workflow-runs.jsonl");
    expect(kept).not.toContain(TOKEN);
    const record = JSON.parse(kept.trim());
    expect(record.status).toBe("succeeded");
    expect(record.arguments).toEqual({ token: "***" });
    expect(record.prompt).toBe("Deploy with ***");
    expect(record.steps[0].label).toBe("Deploying with ***");
    expect(record.steps[1].rendered).toBe("echo pushing '***' >/dev/null");
    expect(record.steps[2].rendered).toEqual({ command: "test -n '***'" });
    expect(record.steps[3].child.arguments).toEqual({ t: "***" });
    // what --json printed and `keel workflow runs` shows are the same record
    expect(run.stdout).not.toContain(TOKEN);
    const runs = await runKeel(["--json", "workflow", "runs"], { cwd: ws.root, env });
    expect(runs.stdout).not.toContain(TOKEN);
    expect(JSON.parse(runs.stdout).runs[0].id).toBe(record.id);
  });
});
