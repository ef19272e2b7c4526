import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const SKILL = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;

describe("a workspace skill whose SKILL.md is a symbolic link", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });

  it("is skipped when SKILL.md leads outside the workspace (another project's or your private skill), with a warning", async () => {
    ws = makeWorkspace({ ".claude/skills/peek/keep.md": "x" });
    // a file outside the workspace, beside it (as ~/.claude/skills/private/SKILL.md would be)
    const outside = join(dirname(ws.root), "private", "SKILL.md");
    mkdirSync(dirname(outside), { recursive: true });
    writeFileSync(outside, SKILL("private", "Your private notes", "PRIVATE-BODY"));
    symlinkSync(outside, ws.path(".claude/skills/peek/SKILL.md"));
    const call = await runKeel(["--json", "call", "skill", "--input", '{"name":"private"}'], { cwd: ws.root, env: ws.env });
    expect(call.stdout).not.toContain("PRIVATE-BODY");
    const tools = (await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env })).json();
    const skipped = tools.diagnostics.find(
      (d: { source: string; file?: string }) => d.source === "skill" && d.file === ws!.path(".claude/skills/peek/SKILL.md"),
    );
    expect(skipped).toMatchObject({ severity: "warning" });
    expect(skipped.message).toContain(outside);
  });

  it("is not shown when SKILL.md leads to a workspace file a read deny rule covers", async () => {
    ws = makeWorkspace({ "private/notes.md": SKILL("notes", "Team notes", "NOTES-BODY"), ".claude/skills/notes/other.md": "x" });
    symlinkSync(ws.path("private/notes.md"), ws.path(".claude/skills/notes/SKILL.md"));
    ws.writeUserConfig({ permissions: { deny: ["read_file(private/**)"] } });
    const call = await runKeel(["--json", "call", "skill", "--input", '{"name":"notes"}'], { cwd: ws.root, env: ws.env });
    expect(call.json()).toMatchObject({ ok: false, code: "permission_denied" });
    expect(call.stdout).not.toContain("NOTES-BODY");
  });
});
