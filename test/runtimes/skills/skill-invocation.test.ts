import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

describe("skills with disable-model-invocation (Claude Code: only the user starts them)", () => {
  it("are not listed for the model, the skill tool refuses them, and their allowed-tools approve nothing", async () => {
    ws = makeWorkspace({ ".claude/skills/notes/SKILL.md": "---\nname: notes\ndescription: How notes are written here\n---\nNOTES-BODY" });
    // your own skill (its allowed-tools may approve calls), meant to be started by you alone
    mkdirSync(join(ws.keelHome, "skills", "deploy"), { recursive: true });
    writeFileSync(
      join(ws.keelHome, "skills", "deploy", "SKILL.md"),
      "---\nname: deploy\ndescription: Deploys production\ndisable-model-invocation: true\nallowed-tools: Bash(echo *)\ncontext: fork\n---\nDEPLOY-BODY",
    );
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    const before = server.requests.length;
    server.push(
      { toolCalls: [{ id: "s1", name: "skill", arguments: { name: "deploy" } }] },
      { toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo deployed > deployed.txt" } }] },
      { text: "done" },
    );
    const r = await runKeel(["--json", "run", "deploy it"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const [first, second] = server.requests.slice(before);
    const system = first!.messages[0]!.content!;
    expect(system).toContain("- notes: How notes are written here");
    expect(system).not.toContain("deploy");
    const refused = second!.messages.at(-1)!;
    expect(refused.role).toBe("tool");
    expect(refused.content).toContain('No skill named "deploy"');
    expect(JSON.stringify(server.requests.slice(before))).not.toContain("DEPLOY-BODY");
    // the skill never became active, so its allowed-tools did not approve the shell call: it waits for approval
    expect(r.json()).toMatchObject({ reason: "awaiting_approval" });
    expect(ws.exists("deployed.txt")).toBe(false);

    const tools = await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env });
    const diagnostics = tools.json<{ diagnostics: { source: string; severity: string; message: string }[] }>().diagnostics.filter((d) => d.source === "skill");
    expect(diagnostics.find((d) => /Skill "deploy" has disable-model-invocation: true/.test(d.message))?.severity).toBe("info");
    expect(diagnostics.find((d) => /Skill "deploy": keel does not support the front matter field "context"/.test(d.message))?.severity).toBe("info");
  });
});
