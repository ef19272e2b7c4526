import { describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";
import { writeUserPlugin } from "../../plugins/plugin-test-kit.js";

let ws: TempWorkspace | undefined;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

describe("workflow discovery and tools", () => {
  it("finds every source, bounded by the workspace root, and reports problems with file, JSON path and reason", async () => {
    ws = makeWorkspace({
      ".claw-workflow.json": { workflow: { name: "root-one", steps: ["hello"] } },
      "pkg/sub/.claw-workflows.json": {
        workflows: [
          { name: "near", description: "nearest", steps: [{ title: "Look", detail: "at {x}" }] },
          { name: "Root-One", steps: ["dupe"] },
          { name: "broken", steps: [{ tool: "read_file", run: "ls" }] },
          { name: "badtype", steps: [{ run: "ls", timeoutMs: "soon" }] },
          { name: "negative", steps: [{ run: "ls", timeoutMs: -5 }] },
        ],
      },
      ".keel/workflows/bare.json": { name: "bare", triggers: ["push"], steps: [{ run: "true", extra: 1 }] },
      ".keel/workflows/garbage.json": "{ not json",
      ".claw-plugin/plugin.json": { name: "wfplug", workflows: [{ name: "from-plugin", steps: ["plugged"] }] },
    });
    host = await openTestHost(ws, { cwd: ws.path("pkg", "sub") });
    const svc = host.service("workflows")!;
    // Nearest file first: its "Root-One" wins over the root's "root-one" (names match case-insensitively).
    expect(svc.list().map((w) => w.name)).toEqual(["near", "Root-One", "bare", "from-plugin"]);
    expect(svc.get("ROOT-ONE")?.origin.file).toBe(ws.path("pkg", "sub", ".claw-workflows.json"));
    expect(svc.get("from-plugin")?.origin).toMatchObject({ kind: "plugin", plugin: "wfplug", userLevel: false });
    expect(svc.list("nearest").map((w) => w.name)).toEqual(["near"]);

    const diags = host.diagnostics.items.filter((d) => d.source === "workflow");
    const sub = ws.path("pkg", "sub", ".claw-workflows.json");
    expect(diags).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          severity: "warning",
          file: ws.path(".claw-workflow.json"),
          path: "workflow",
          message: expect.stringContaining("defined more than once"),
        }),
        expect.objectContaining({ severity: "error", file: sub, path: "workflows[2].steps[0]", message: expect.stringContaining("tool and run") }),
        expect.objectContaining({
          severity: "error",
          file: sub,
          path: "workflows[3].steps[0].timeoutMs",
          message: expect.stringContaining("number of milliseconds"),
        }),
        expect.objectContaining({
          severity: "error",
          file: sub,
          path: "workflows[4].steps[0].timeoutMs",
          message: expect.stringContaining("must be more than 0 milliseconds (got -5)"),
        }),
        expect.objectContaining({ severity: "warning", file: ws.path(".keel", "workflows", "bare.json"), path: "steps[0].extra" }),
        expect.objectContaining({
          severity: "warning",
          file: ws.path(".keel", "workflows", "bare.json"),
          path: "triggers",
          message: expect.stringContaining('Unknown workflow field "triggers"'),
        }),
        expect.objectContaining({ severity: "error", file: ws.path(".keel", "workflows", "garbage.json"), message: expect.stringContaining("not valid JSON") }),
      ]),
    );
  });

  it("a user-level workflow is never displaced by a workspace workflow of the same name (case-insensitively)", async () => {
    ws = makeWorkspace({
      ".claw-workflows.json": {
        workflows: [
          { name: "Review", steps: ["workspace"] },
          { name: "other", steps: ["x"] },
        ],
      },
    });
    const userFile = writeUserPlugin(ws, "mine", { name: "mine", workflows: [{ name: "review", steps: ["user"] }] });
    host = await openTestHost(ws);
    const svc = host.service("workflows")!;
    expect(svc.list().map((w) => [w.name, w.origin.file, w.origin.userLevel])).toEqual([
      ["review", userFile, true],
      ["other", ws.path(".claw-workflows.json"), false],
    ]);
    const d = host.diagnostics.items.find((x) => x.source === "workflow" && x.file === ws!.path(".claw-workflows.json"))!;
    expect(d).toMatchObject({ severity: "warning", path: "workflows[0]" });
    expect(d.message).toContain(userFile);
    expect(d.message).toMatch(/a workspace may not replace a user-level workflow/);
  });

  it("workflow_list, workflow_get and workflow_run work through the pipeline (reference tool names and fields)", async () => {
    ws = makeWorkspace({
      ".claw-workflows.json": {
        workflows: [{ name: "build", description: "Build the project.", steps: ["Inspect package", "Run build {target}"], prompt: "Build {target}" }],
      },
    });
    host = await openTestHost(ws, { trust: true });
    const list = await host.runTool({ tool: "workflow_list", input: {} });
    expect(list.ok).toBe(true);
    expect(list.content).toContain("- build ; steps=2 ; Build the project.");
    const get = await host.runTool({ tool: "workflow_get", input: { workflow_name: "BUILD" } });
    expect(get.content).toContain("Build the project");
    expect((await host.runTool({ tool: "workflow_get", input: { workflow_name: "nope" } })).code).toBe("precondition_failed");
    const run = await host.runTool({ tool: "workflow_run", input: { workflow_name: "build", arguments: { target: "dist" } } }, { yes: true });
    expect(run.ok).toBe(true);
    expect(run.metadata.action).toBe("workflow_run");
    expect(run.content).toContain("# Workflow Run");
    expect(run.content).toContain("Run build dist");
    expect(run.content).toContain("Build dist");
    // Without --yes the model's workflow_run asks first (it delegates work).
    expect((await host.runTool({ tool: "workflow_run", input: { workflow_name: "build" } })).code).toBe("approval_required");
  });
});
