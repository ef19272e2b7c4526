import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { Host } from "../../../core/host.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace | undefined;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

async function setup(workflows: object[], opts: { trust?: boolean; files?: Record<string, string | object>; git?: boolean } = {}) {
  ws = makeWorkspace({ ".claw-workflows.json": { workflows }, ...(opts.files ?? {}) }, { git: opts.git });
  host = await openTestHost(ws, { trust: opts.trust ?? true });
  return host.service("workflows")!;
}

describe("workflow runs (in-process host)", () => {
  it("runs a tool step, a run step using the earlier output, and a nested workflow; typed placeholders keep their JSON type", async () => {
    const svc = await setup(
      [
        {
          name: "chain",
          parameters: { type: "object", properties: { file: { type: "string" }, lines: { type: "integer", default: 1 } }, required: ["file"] },
          steps: [
            { id: "read", tool: "read_file", input: { path: "{file}", limit: "{lines}" } },
            { id: "shout", run: "echo {steps.read.content} | tr a-z A-Z > shout.txt && cat shout.txt" },
            { id: "inner", workflow: "inner", arguments: { word: "{steps.shout.content}" } },
            { run: "echo {steps.inner.ok} > nested-ok.txt" },
          ],
        },
        { name: "inner", steps: [{ id: "w", tool: "write_file", input: { path: "inner.txt", content: "{word}" } }] },
      ],
      { files: { "notes.txt": "hello\nsecond line\n" } },
    );
    const record = await svc.run("chain", { args: { file: "notes.txt" }, yes: true });
    expect(record.status, JSON.stringify(record, null, 2)).toBe("succeeded");
    expect(record.arguments).toEqual({ file: "notes.txt", lines: 1 });
    expect(record.steps.map((s) => [s.key, s.kind, s.status])).toEqual([
      ["read", "tool", "succeeded"],
      ["shout", "run", "succeeded"],
      ["inner", "workflow", "succeeded"],
      ["4", "run", "succeeded"],
    ]);
    expect(record.steps[0]!.rendered).toEqual({ path: "notes.txt", limit: 1 });
    expect(ws!.read("shout.txt")).toBe("HELLO\n");
    expect(ws!.read("inner.txt")).toBe("HELLO");
    expect(ws!.read("nested-ok.txt")).toBe("true\n");
    expect(record.steps[2]!.child?.steps[0]).toMatchObject({ tool: "write_file", status: "succeeded" });

    const lines = readFileSync(svc.runsFile, "utf8").trim().split("\n");
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ id: record.id, workflow: "chain", status: "succeeded" });
  });

  it("a failing run step fails the workflow and skips the rest, unless continueOnError", async () => {
    const svc = await setup([
      { name: "strict", steps: [{ run: "exit 3" }, { run: "touch after.txt" }] },
      { name: "lenient", steps: [{ id: "bad", run: "exit 3", continueOnError: true }, { run: "echo {steps.bad.ok} > after.txt" }] },
    ]);
    const strict = await svc.run("strict", { yes: true });
    expect(strict.status).toBe("failed");
    expect(strict.steps.map((s) => s.status)).toEqual(["failed", "skipped"]);
    expect(strict.error).toContain("step 1");
    expect(ws!.exists("after.txt")).toBe(false);

    const lenient = await svc.run("lenient", { yes: true });
    expect(lenient.status).toBe("succeeded");
    expect(lenient.steps[0]).toMatchObject({ status: "failed", continued: true, code: "execution_failed" });
    expect(ws!.read("after.txt")).toBe("false\n");
  });

  it("arguments violating parameters fail before any step runs", async () => {
    const svc = await setup([
      {
        name: "typed",
        parameters: { type: "object", properties: { count: { type: "integer", minimum: 1 } }, required: ["count"] },
        steps: [{ run: "touch ran.txt" }],
      },
    ]);
    const record = await svc.run("typed", { args: { count: "many" }, yes: true });
    expect(record.status).toBe("failed");
    expect(record.refused).toBe("arguments");
    expect(record.error).toContain("`count` must be integer");
    expect(record.steps.every((s) => s.status === "skipped")).toBe(true);
    expect(ws!.exists("ran.txt")).toBe(false);
  });

  it("a tool blocked by a plugin is blocked inside a workflow, and a permissions.deny rule denies a run step", async () => {
    const svc = await setup(
      [
        { name: "blocked", steps: [{ tool: "write_file", input: { path: "x.txt", content: "x" } }] },
        { name: "denied", steps: [{ run: "touch denied.txt" }] },
      ],
      {
        files: {
          ".claw-plugin/plugin.json": { name: "guard", blocked_tools: ["write_file"] },
          "keel.config.json": { permissions: { deny: ["bash(touch*)"] } },
        },
      },
    );
    const blocked = await svc.run("blocked", { yes: true });
    expect(blocked.status).toBe("failed");
    expect(blocked.steps[0]).toMatchObject({ status: "failed", code: "tool_blocked", phase: "hook" });
    expect(ws!.exists("x.txt")).toBe(false);

    const denied = await svc.run("denied", { yes: true });
    expect(denied.steps[0]).toMatchObject({ status: "failed", code: "permission_denied" });
    expect(ws!.exists("denied.txt")).toBe(false);
  });

  it("refuses an untrusted workspace's workflow (here with a shell step) before any step, saying how to trust", async () => {
    const svc = await setup([{ name: "shell", steps: ["note first", { run: "touch nope.txt" }] }], { trust: false });
    const record = await svc.run("shell", { yes: true });
    expect(record.status).toBe("failed");
    expect(record.refused).toBe("trust");
    expect(record.error).toContain("not trusted");
    expect(record.error).toContain("keel trust");
    expect(record.steps.every((s) => s.status === "skipped")).toBe(true);
    expect(ws!.exists("nope.txt")).toBe(false);
  });

  it("worktree: true with onFinish discard edits a file: main untouched, edit recoverable from refs/keel/discarded/", async () => {
    const svc = await setup(
      [
        {
          name: "experiment",
          worktree: true,
          onFinish: "discard",
          steps: [
            { tool: "write_file", input: { path: "app.txt", content: "experimental\n" } },
            { id: "where", run: "pwd" },
          ],
        },
      ],
      { git: true, files: { "app.txt": "stable\n" } },
    );
    const record = await svc.run("experiment", { yes: true });
    expect(record.status, JSON.stringify(record, null, 2)).toBe("succeeded");
    expect(record.steps[1]!.summary).toContain(join(".keel", "worktrees", "wf-experiment-"));
    expect(ws!.read("app.txt")).toBe("stable\n");
    expect(ws!.git("status", "--porcelain", "-uall").trim()).toBe("");
    const saved = record.worktree?.result?.savedRef;
    expect(saved).toMatch(/^refs\/keel\/discarded\/wf-experiment-/);
    expect(ws!.git("show", `${saved}:app.txt`)).toBe("experimental\n");
    expect(existsSync(record.worktree!.path)).toBe(false);
    expect(ws!.git("branch", "--format=%(refname:short)").trim()).toBe("main");
  });

  it("detects cycles, skips steps whose `if` is false, and fails a prompt step without a model (optional ones are skipped)", async () => {
    const svc = await setup([
      { name: "a", steps: [{ workflow: "b" }] },
      { name: "b", steps: [{ workflow: "A" }] },
      {
        name: "cond",
        parameters: { type: "object", properties: { go: { type: "boolean" } } },
        steps: [
          { id: "x", run: "touch x.txt", if: "go" },
          { run: "touch y.txt", if: "!steps.x.ok" },
        ],
      },
      { name: "ask", steps: [{ prompt: "optional question", optional: true }, { prompt: "Summarize {what}" }] },
    ]);
    const cyc = await svc.run("a", { yes: true });
    expect(cyc.status).toBe("failed");
    expect(JSON.stringify(cyc)).toContain("Workflow cycle detected: a → b → a");

    const cond = await svc.run("cond", { args: { go: false }, yes: true });
    expect(cond.status).toBe("succeeded");
    expect(cond.steps.map((s) => s.status)).toEqual(["skipped", "succeeded"]);
    expect(ws!.exists("x.txt")).toBe(false);
    expect(ws!.exists("y.txt")).toBe(true);

    const ask = await svc.run("ask", { yes: true });
    expect(ask.status).toBe("failed");
    expect(ask.steps[0]).toMatchObject({ status: "skipped" });
    expect(ask.steps[1]).toMatchObject({ status: "failed", code: "precondition_failed", rendered: "Summarize {what}" });
    expect(ask.steps[1]!.reason).toContain("keel.config.json");
    expect(ask.warnings.join("\n")).toContain("{what}");
  });

  it("Ctrl-C cancels the running step and records `cancelled`; timeoutMs fails a slow step", async () => {
    const svc = await setup([
      // Only the abort (or the timeout) can end these steps before the test's own timeout.
      { name: "slow", steps: [{ run: "touch started.txt && sleep 600" }, { run: "touch never.txt" }] },
      { name: "timed", steps: [{ run: "sleep 600", timeoutMs: 300 }] },
    ]);
    const controller = new AbortController();
    const running = svc.run("slow", { yes: true, signal: controller.signal });
    await vi.waitFor(() => expect(ws!.exists("started.txt")).toBe(true), { timeout: 60_000, interval: 20 });
    controller.abort();
    const record = await running;
    expect(record.status).toBe("cancelled");
    expect(record.steps.map((s) => s.status)).toEqual(["cancelled", "skipped"]);
    expect(ws!.exists("never.txt")).toBe(false);
    expect((await svc.runs(1))[0]).toMatchObject({ id: record.id, status: "cancelled" });

    const timed = await svc.run("timed", { yes: true });
    expect(timed.status).toBe("failed");
    expect(timed.steps[0]!.code).toBe("timeout");
  });
});
