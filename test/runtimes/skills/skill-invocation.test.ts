import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
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
      // the run pauses on this call (see below), so no reply after it is queued (it would answer the next test's run)
      { toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo deployed > deployed.txt" } }] },
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

  it("you start any skill as /name (keel run), $ARGUMENTS filled in; a prompt command of the same name wins; a SKILL.md a read rule hides is not sent", async () => {
    ws = makeWorkspace({
      ".claude/skills/release/SKILL.md": "---\nname: release\ndescription: Cuts a release\ndisable-model-invocation: true\n---\nRELEASE-BODY for $ARGUMENTS",
      ".claude/skills/review/SKILL.md": "---\nname: review\ndescription: Reviews a change\n---\nREVIEW-SKILL-BODY",
      ".claude/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lints\n---\nLINT-SKILL-BODY",
      ".claude/commands/lint.md": "LINT-COMMAND-BODY $ARGUMENTS",
    });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    const lastUser = () =>
      server.requests
        .at(-1)!
        .messages.filter((m) => m.role === "user")
        .at(-1)!.content;
    server.push({ text: "ok" });
    let r = await runKeel(["--json", "run", "/release v2.1"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(lastUser()).toBe("# Skill: release\n\nRELEASE-BODY for v2.1");
    server.push({ text: "ok" });
    r = await runKeel(["--json", "run", "/review the parser"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(lastUser()).toBe("# Skill: review\n\nREVIEW-SKILL-BODY\n\nARGUMENTS: the parser");
    server.push({ text: "ok" });
    r = await runKeel(["--json", "run", "/lint src"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(lastUser()).toContain("LINT-COMMAND-BODY src");
    expect(lastUser()).not.toContain("LINT-SKILL-BODY");

    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl }, permissions: { deny: ["read_file(.claude/skills/review/**)"] } });
    const count = server.requests.length;
    r = await runKeel(["run", "/review x"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("skill review is not sent");
    expect(server.requests.length).toBe(count);
  });
});

describe("a skill you start as /name grants its allowed-tools as when the model loads it (Claude Code applies them when you invoke it)", () => {
  it('keel run "/name": your own skill (disable-model-invocation too) approves matching calls; an untrusted workspace\'s skill approves nothing until keel trust', async () => {
    ws = makeWorkspace(
      {
        ".claude/skills/local/SKILL.md":
          "---\nname: local\ndescription: Local deploy\ndisable-model-invocation: true\nallowed-tools: Bash(echo:*)\n---\nRun echo deployed.",
      },
      { git: true },
    );
    mkdirSync(join(ws.keelHome, "skills", "deploy"), { recursive: true });
    writeFileSync(
      join(ws.keelHome, "skills", "deploy", "SKILL.md"),
      "---\nname: deploy\ndescription: Deploys\ndisable-model-invocation: true\nallowed-tools: Bash(echo:*)\n---\nRun echo deployed.",
    );
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    // exactly the replies a run uses are queued: a paused run stops before the next one
    const run = async (prompt: string, approved: boolean) => {
      const before = server.requests.length;
      server.push(
        { toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo deployed" } }] },
        ...(approved ? [{ toolCalls: [{ id: "b2", name: "bash", arguments: { command: "touch pwned" } }] }] : []),
      );
      const r = await runKeel(["--json", "run", prompt], { cwd: ws.root, env: ws.env });
      expect(r.exitCode, r.stderr).toBe(0);
      return { out: r.json<{ reason: string; sessionId: string }>(), requests: server.requests.slice(before) };
    };
    const user = await run("/deploy", true);
    const started = user.requests[0]!.messages.filter((m) => m.role === "user").at(-1)!.content;
    expect(started).toContain("these calls need no approval: Bash(echo:*)");
    // echo ran without asking (approved by the skill); touch is not in allowed-tools, so the run pauses there
    expect(user.out.reason).toBe("awaiting_approval");
    expect(user.requests[1]!.messages.at(-1)!.content).toContain("deployed");
    expect(ws.exists("pwned")).toBe(false);
    const events = readFileSync(ws.path(".keel", "sessions", user.out.sessionId, "events.jsonl"), "utf8");
    expect(events).toContain('"approvedBy":"hook: skill deploy (allowed-tools)"');

    // the workspace's skill: untrusted, it widens nothing (and the model is not told it does)
    const untrusted = await run("/local", false);
    expect(untrusted.out.reason).toBe("awaiting_approval");
    expect(untrusted.requests).toHaveLength(1);
    expect(untrusted.requests[0]!.messages.filter((m) => m.role === "user").at(-1)!.content).not.toContain("need no approval");
    // approved by keel trust, it does
    const trusted = await runKeel(["--json", "trust"], { cwd: ws.root, env: ws.env });
    expect(trusted.json().approved).toMatchObject([{ kind: "skill", name: "local (.claude/skills/local/SKILL.md)" }]);
    const local = await run("/local", true);
    expect(local.out.reason).toBe("awaiting_approval");
    expect(local.requests).toHaveLength(2);
    expect(local.requests[1]!.messages.at(-1)!.content).toContain("deployed");
  });
});
