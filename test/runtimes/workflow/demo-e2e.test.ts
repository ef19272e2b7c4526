import { execa } from "execa";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const base = realpathSync(mkdtempSync(join(tmpdir(), "keel-demo-test-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("npm start (examples/start-demo)", () => {
  it("copies the demo to a temp dir, trusts it and runs the tour to success without touching the checkout", async () => {
    const home = join(base, "home");
    const tmp = join(base, "tmp");
    mkdirSync(home);
    mkdirSync(tmp);
    const env: NodeJS.ProcessEnv = { ...process.env, KEEL_HOME: home, TMPDIR: tmp, CI: "true" };
    delete env.KEEL_TRUST;
    const r = await execa("node", [join(ROOT, "dist", "examples", "start-demo.js")], {
      cwd: ROOT,
      env,
      extendEnv: false,
      reject: false,
      timeout: 110_000,
      stdin: "ignore",
    });
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.exitCode, out).toBe(0);
    expect(r.stdout).toMatch(/✓ Workflow tour succeeded/);
    expect(r.stdout).toContain("Hello newcomer, welcome to the keel demo!");
    expect(r.stdout).toContain("Saved note #1");

    const demo = join(
      tmp,
      readdirSync(tmp).find((d) => d.startsWith("keel-demo-"))!,
      "demo",
    );
    const recordFile = join(demo, ".keel", "state", "workflow-runs.jsonl");
    expect(r.stdout).toContain(`The run record is in ${recordFile}`);
    const record = JSON.parse(readFileSync(recordFile, "utf8").trim().split("\n").at(-1)!);
    expect(record).toMatchObject({ workflow: "tour", status: "succeeded" });
    const byKey = Object.fromEntries(record.steps.map((s: { key: string }) => [s.key, s]));
    expect(byKey.greet).toMatchObject({ status: "succeeded", tool: "greet" });
    expect(byKey.note).toMatchObject({ status: "succeeded", tool: "mcp__notes__add_note" });
    expect(byKey.task1).toMatchObject({ status: "succeeded", tool: "task_create" });
    expect(byKey.shell).toMatchObject({ status: "succeeded", tool: "bash" });
    expect(byKey.blocked).toMatchObject({ status: "failed", code: "tool_blocked", continued: true });
    expect(byKey.experiment.child.worktree.result).toMatchObject({ ok: true, action: "discard" });
    const saved = byKey.experiment.child.worktree.result.savedRef as string;
    const shown = await execa("git", ["show", `${saved}:IDEA.md`], { cwd: demo });
    expect(shown.stdout).toContain("Rewrite everything in newcomer-script");

    // The checkout's demo folder was only read.
    expect(existsSync(join(ROOT, "examples", "demo", ".keel"))).toBe(false);
    expect(existsSync(join(ROOT, "examples", "demo", "node_modules"))).toBe(false);
    expect(existsSync(join(ROOT, "examples", "demo", ".git"))).toBe(false);
  });
});
