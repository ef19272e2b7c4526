import { expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

let host: Host | undefined;
let ws: TempWorkspace | undefined;
closeAfterEach(() => ({ host, ws }));

it("the user's config_set on a long-lived host does not approve a widening change a model made earlier on the same host", async () => {
  ws = makeWorkspace({ "keel.config.json": { permissions: { allow: ["bash(echo *)"] } } }, { git: true });
  expect((await runKeel(["trust"], { cwd: ws.root, env: ws.env })).exitCode).toBe(0);
  host = await openTestHost(ws);
  expect(host.configTrusted).toBe(true);
  // The model widens the allow rules (you approved the write, or --yes did): that waits for keel trust.
  const model = await host.runTool(
    { tool: "config_set", input: { key_path: "permissions.allow", value: ["bash"], source: "project" } },
    { origin: "agent", yes: true },
  );
  expect(model.ok, model.content).toBe(true);
  // Then the program embedding keel (origin api, as the user) changes something else on the same host.
  const own = await host.runTool({ tool: "config_set", input: { key_path: "agent.maxSteps", value: 4 } }, { origin: "api", yes: true });
  expect(own.ok, own.content).toBe(true);
  const next = await openTestHost(ws);
  try {
    expect(next.configTrusted).toBe(false); // the model's allow rule is still held back
  } finally {
    await next.close();
  }
});

it("the user's config_set calls one after another on the same host stay approved", async () => {
  ws = makeWorkspace({ "keel.config.json": { permissions: { allow: ["bash(echo *)"] } } }, { git: true });
  expect((await runKeel(["trust"], { cwd: ws.root, env: ws.env })).exitCode).toBe(0);
  host = await openTestHost(ws);
  for (const allow of [
    ["bash(echo *)", "bash(ls*)"],
    ["bash(echo *)", "bash(ls*)", "bash(pwd)"],
  ]) {
    const set = await host.runTool(
      { tool: "config_set", input: { key_path: "permissions.allow", value: allow, source: "project" } },
      { origin: "api", yes: true },
    );
    expect(set.ok, set.content).toBe(true);
  }
  const next = await openTestHost(ws);
  try {
    expect(next.configTrusted).toBe(true);
  } finally {
    await next.close();
  }
});
