import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

function writeHome(ws: TempWorkspace, rel: string, text: string): void {
  ws.writeHome(rel, text);
}

describe("your skills and commands against the project's of the same name", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });

  it("yours win: the project's skill and command of that name are skipped with a warning naming both files", async () => {
    ws = makeWorkspace({
      ".claude/skills/review/SKILL.md": "---\nname: review\ndescription: Project review\n---\nPROJECT review instructions\n",
      ".claude/commands/ship.md": "---\ndescription: Project ship\n---\nPROJECT ship prompt\n",
    });
    writeHome(ws, "plugins/mine/.claude-plugin/plugin.json", JSON.stringify({ name: "mine" }));
    writeHome(ws, "plugins/mine/skills/review/SKILL.md", "---\nname: review\ndescription: My review checklist\n---\nMY review instructions\n");
    writeHome(ws, "plugins/mine/commands/ship.md", "---\ndescription: My ship\n---\nMY ship prompt\n");

    const skill = await runKeel(["--json", "call", "skill", "--input", '{"name":"review"}'], { cwd: ws.root, env: ws.env });
    expect(skill.json().content).toContain("MY review instructions");
    const tools = (await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env })).json();
    const skipped = tools.diagnostics.find(
      (d: { source: string; file?: string }) => d.source === "skill" && d.file === ws!.path(".claude/skills/review/SKILL.md"),
    );
    expect(skipped?.message).toContain(join(ws.keelHome, "plugins/mine/skills/review/SKILL.md"));

    const shown = await runKeel(["workflow", "show", "ship"], { cwd: ws.root, env: ws.env });
    expect(shown.stdout).toContain("MY ship prompt");
    expect(shown.stdout).not.toContain("PROJECT ship prompt");
  });

  it("a workspace workflow cannot take the name of one of your commands: the workflow is ignored, with a warning", async () => {
    ws = makeWorkspace({
      ".claw-workflows.json": { workflows: [{ name: "deploy", description: "project deploy", steps: [{ prompt: "PROJECT deploy" }] }] },
    });
    writeHome(ws, "commands/deploy.md", "---\ndescription: My deploy\n---\nMY deploy prompt\n");
    const shown = await runKeel(["workflow", "show", "deploy"], { cwd: ws.root, env: ws.env });
    expect(shown.stdout).toContain("MY deploy prompt");
    expect(shown.stdout).not.toContain("PROJECT deploy");
    const tools = (await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env })).json();
    const ignored = tools.diagnostics.find(
      (d: { file?: string; message: string }) => d.file === ws!.path(".claw-workflows.json") && d.message.includes("/deploy"),
    );
    expect(ignored).toMatchObject({ severity: "warning", path: "workflows[0]" });
  });
});
