import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { startOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";

/**
 * A workflow you start (`keel workflow run`) whose prompt step puts an earlier step's result in a model's prompt:
 * keel's refusals in those results are worded for the model — ask the user to run `keel trust`, never a way to trust
 * for one run — as they are when a model starts the run (README, "Trust" hints).
 */
let ws: TempWorkspace | undefined;
let host: Host | undefined;
let server: OpenAIServer | undefined;
afterEach(async () => {
  await host?.close();
  await server?.close();
  ws?.cleanup();
});

/** An untrusted workspace with a workflow of its own, and your user-level workflow `outer` with `steps` (a user-level plugin's). */
async function open(steps: unknown[]): Promise<Host> {
  server = await startOpenAIServer([{ text: "noted" }]);
  ws = makeWorkspace({ ".claw-workflows.json": { workflows: [{ name: "theirs", steps: [{ id: "a", run: "echo hi" }] }] } });
  ws.writeUserConfig({ model: { name: "local-model", baseUrl: server.baseUrl, contextWindow: 64000 } });
  const dir = join(ws.keelHome, "plugins", "mine");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "plugin.json"), JSON.stringify({ name: "mine", workflows: [{ name: "outer", steps }] }));
  return (host = await openTestHost(ws, { env: { ...ws.env, OPENAI_API_KEY: "k" } }));
}

/** What the model was sent. */
function sent(): string {
  return JSON.stringify(server!.requests.map((r) => r.messages));
}

describe("a user-run workflow hands a refusal to its prompt step", () => {
  it("a workflow_run tool step: the model is told to ask the user to run keel trust", async () => {
    const h = await open([
      { id: "a", tool: "workflow_run", input: { workflow_name: "theirs" }, continueOnError: true },
      { id: "b", prompt: "What went wrong? {steps.a.content}" },
    ]);
    const record = await h.service("workflows")!.run("outer", { yes: true, origin: "cli" });
    expect(record.steps[1]).toMatchObject({ kind: "prompt", status: "succeeded" });
    // Old code: the refusal said "or pass --trust or set KEEL_TRUST=1 for one invocation" to the model.
    expect(sent()).toContain("not trusted");
    expect(sent()).toContain("ask the user to run it in their own terminal");
    expect(sent()).not.toMatch(/--trust|KEEL_TRUST/);
  });

  it("a nested workflow step: its refusal, in the prompt step, is worded for the model too", async () => {
    const h = await open([
      { id: "a", workflow: "theirs", continueOnError: true },
      { id: "b", prompt: "What went wrong? {steps.a.content}" },
    ]);
    const record = await h.service("workflows")!.run("outer", { yes: true, origin: "cli" });
    expect(record.steps[1]).toMatchObject({ kind: "prompt", status: "succeeded" });
    expect(sent()).toContain("not trusted");
    expect(sent()).not.toMatch(/--trust|KEEL_TRUST/);
  });

  it("a workflow_run tool step next to a prompt step counts as the model's: a command only you may run is refused", async () => {
    const h = await open([
      { id: "a", prompt: "Which command?" },
      { id: "b", tool: "workflow_run", input: { workflow_name: "mine-only" }, continueOnError: true },
    ]);
    ws!.write(".claude/commands/mine-only.md", "---\ndisable-model-invocation: true\n---\nDo the thing.");
    await h.close();
    host = await openTestHost(ws!, { env: { ...ws!.env, OPENAI_API_KEY: "k" } });
    const record = await host.service("workflows")!.run("outer", { yes: true, origin: "cli" });
    expect(record.steps[1]).toMatchObject({ kind: "tool", status: "failed", code: "permission_denied" });
    expect(JSON.stringify(record.steps[1])).toContain("disable-model-invocation");
  });

  it("without a step that hands results to a model, your run keeps the way to trust for one run", async () => {
    const h = await open([{ id: "a", tool: "workflow_run", input: { workflow_name: "theirs" }, continueOnError: true }]);
    const record = await h.service("workflows")!.run("outer", { yes: true, origin: "cli" });
    expect(JSON.stringify(record.steps[0])).toContain("or pass --trust or set KEEL_TRUST=1 for one invocation");
  });
});
