import { describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { MAX_RENDERED_CHARS } from "../../../core/render-template.js";
import { RenderBudget } from "../../../runtimes/workflow/render-budget.js";
import { renderDeep, type TemplateValues } from "../../../runtimes/workflow/template-values.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace | undefined;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

const third = Math.floor(MAX_RENDERED_CHARS / 3) + 1;
const values: TemplateValues = { big: "x".repeat(third), list: ["y".repeat(third)], steps: {} };

describe("the workflow template cap is one budget per render, not per string", () => {
  it("three strings of a third of the cap each (placeholders, and lone ones kept with their type) fail together", () => {
    expect(() => renderDeep({ a: "{big}!", b: ["{big}!"] }, values)).not.toThrow();
    expect(() => renderDeep({ a: "{big}!", b: ["{big}!"], c: { d: "{big}!" } }, values)).toThrow(`more than ${MAX_RENDERED_CHARS} characters in all`);
    expect(() => renderDeep({ a: "{big}", b: "{big}", c: "{list}" }, values)).toThrow(`more than ${MAX_RENDERED_CHARS} characters in all`);
  });

  it("counts the characters rendered, across calls sharing it, and names where it was spent", () => {
    const budget = new RenderBudget("Step x of workflow w (w.json)", 10);
    expect(budget.render("{a}{a}", { a: "abc" }).text).toBe("abcabc");
    expect(() => budget.render("{a}{a}", { a: "abc" })).toThrow(/^Step x of workflow w \(w\.json\) renders to more than/);
    expect(budget.render("{a}", { a: "abc" }).text).toBe("abc");
    expect(() => budget.take("zz")).toThrow("Step x of workflow w (w.json) renders to more than 10 characters in all");
  });

  it("a step whose input strings each stay under the cap fails, naming the workflow file and step; nothing runs", async () => {
    const each = "{a}".repeat(1_500); // 1,500 × 1,000 = 1.5 Mi characters per string, 4.5 Mi for the step
    ws = makeWorkspace({
      ".claw-workflows.json": {
        workflows: [{ name: "wide", steps: [{ id: "fan", tool: "write_file", input: { path: "out.txt", content: each, note: each, more: each } }] }],
      },
    });
    host = await openTestHost(ws, { trust: true });
    const record = await host.service("workflows")!.run("wide", { args: { a: "a".repeat(1_000) }, yes: true });
    expect(record.status).toBe("failed");
    const reason = record.steps[0]!.reason ?? "";
    expect(reason).toContain(`Step fan (`);
    expect(reason).toContain(`of workflow "wide" (${ws.path(".claw-workflows.json")}) renders to more than ${MAX_RENDERED_CHARS} characters in all`);
    expect(ws.exists("out.txt")).toBe(false);
  });

  it("a workflow prompt that renders past the cap refuses the run with a record naming the file; it does not throw", async () => {
    ws = makeWorkspace({
      ".claw-workflows.json": {
        workflows: [{ name: "talky", prompt: "{a}".repeat(5_000), steps: [{ id: "w", tool: "write_file", input: { path: "out.txt", content: "x" } }] }],
      },
    });
    host = await openTestHost(ws, { trust: true });
    const record = await host.service("workflows")!.run("talky", { args: { a: "a".repeat(1_000) }, yes: true });
    expect(record.status).toBe("failed");
    expect(record.refused).toBe("arguments");
    expect(record.error).toContain(`The prompt of workflow "talky" (${ws.path(".claw-workflows.json")}) renders to more than ${MAX_RENDERED_CHARS} characters`);
    expect(ws.exists("out.txt")).toBe(false);
  });
});
