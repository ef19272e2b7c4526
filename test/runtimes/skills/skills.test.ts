import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const GUARD_RAILS = fileURLToPath(new URL("../../plugins/fixtures/claude-code/plugins/guard-rails", import.meta.url));
const SKILL = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;

const server = useOpenAIServer();
let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

describe("skills (SKILL.md): progressive disclosure", () => {
  it("the first request lists a skill's description only; its body reaches the model after it calls the skill tool", async () => {
    ws = makeWorkspace({
      ".claude/skills/release/SKILL.md": SKILL("release", "How to cut a release of this project", "RELEASE-BODY: bump the version, tag, push."),
      ".claude/skills/release/checklist.md": "CHECKLIST-TEXT",
    });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    const before = server.requests.length;
    server.push(
      { toolCalls: [{ id: "s1", name: "skill", arguments: { name: "release" } }] },
      { toolCalls: [{ id: "s2", name: "skill", arguments: { name: "release", file: "checklist.md" } }] },
      { text: "released" },
    );
    const r = await runKeel(["run", "cut a release"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    const [first, second, third] = server.requests.slice(before);
    const system = first!.messages[0]!.content!;
    expect(system).toContain("# Skills");
    expect(system).toContain("- release: How to cut a release of this project");
    expect(JSON.stringify(first)).not.toContain("RELEASE-BODY");
    expect(first!.tools!.map((t) => t.function.name)).toContain("skill");
    const loaded = second!.messages.at(-1)!;
    expect(loaded.role).toBe("tool");
    expect(loaded.content).toContain("RELEASE-BODY");
    expect(loaded.content).toContain("- checklist.md");
    expect(third!.messages.at(-1)!.content).toBe("CHECKLIST-TEXT");
  });

  it("loads user-level and plugin skills, renames a plugin's clashing skill, and keeps every file read inside its skill's folder", async () => {
    ws = makeWorkspace({ ".claude/skills/writing-guards/SKILL.md": SKILL("writing-guards", "The project's own guard guide", "PROJECT-GUARDS") });
    cpSync(GUARD_RAILS, ws.path("plugins", "guard-rails"), { recursive: true });
    mkdirSync(join(ws.keelHome, "skills", "mine"), { recursive: true });
    writeFileSync(join(ws.keelHome, "skills", "mine", "SKILL.md"), SKILL("mine", "My personal skill", "MINE-BODY"));
    writeFileSync(join(ws.root, "..", "secret.txt"), "SECRET");
    // a skill folder that is a link to outside the workspace is skipped, and so is one without a description
    mkdirSync(join(ws.root, "..", "outside-skill"));
    writeFileSync(join(ws.root, "..", "outside-skill", "SKILL.md"), SKILL("outside", "Leaks", "OUTSIDE"));
    symlinkSync(join(ws.root, "..", "outside-skill"), ws.path(".claude", "skills", "outside"));
    ws.write(".claude/skills/nodesc/SKILL.md", "---\nname: nodesc\n---\nbody");
    ws.write(".claude/skills/empty/SKILL.md", "");
    const tools = await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env });
    const diagnostics = tools.json<{ diagnostics: { source: string; message: string; file?: string }[] }>().diagnostics.filter((d) => d.source === "skill");
    expect(diagnostics.map((d) => d.message).join("\n")).toMatch(/outside-skill, outside .*it was skipped/);
    expect(diagnostics.map((d) => d.message).join("\n")).toMatch(/"nodesc" has no description/);
    // an empty placeholder file is a warning, not an error (published plugin trees ship such placeholders)
    expect(diagnostics.find((d) => /SKILL\.md is empty/.test(d.message))).toMatchObject({ severity: "warning" });

    const call = async (input: object) =>
      (await runKeel(["--json", "call", "skill", "--input", JSON.stringify(input)], { cwd: ws.root, env: ws.env })).json<{
        ok: boolean;
        content: string;
        code: string;
      }>();
    expect((await call({ name: "writing-guards" })).content).toContain("PROJECT-GUARDS");
    const plugin = await call({ name: "guard-rails:writing-guards" });
    expect(plugin.content).toContain("# Writing guard rules");
    expect(plugin.content).toContain("(plugin guard-rails)");
    expect((await call({ name: "mine" })).content).toContain("MINE-BODY");
    const missing = await call({ name: "outside" });
    expect(missing.ok).toBe(false);
    expect(missing.content).toMatch(/No skill named "outside"/);
    const escape = await call({ name: "mine", file: "../../ws/../secret.txt" });
    expect(escape.ok).toBe(false);
    expect(escape.content).not.toContain("SECRET");
    symlinkSync(join(ws.root, "..", "secret.txt"), join(ws.keelHome, "skills", "mine", "link.txt"));
    const viaLink = await call({ name: "mine", file: "link.txt" });
    expect(viaLink.ok).toBe(false);
    expect(viaLink.content).not.toContain("SECRET");
  });

  it("your own skill wins over a project skill of the same name (a cloned repository cannot replace it), with a warning naming both", async () => {
    ws = makeWorkspace({ ".claude/skills/commit/SKILL.md": SKILL("commit", "The repository's commit skill", "REPO-COMMIT") });
    mkdirSync(join(ws.keelHome, "skills", "commit"), { recursive: true });
    writeFileSync(join(ws.keelHome, "skills", "commit", "SKILL.md"), SKILL("commit", "My commit skill", "MY-COMMIT"));
    const loaded = await runKeel(["--json", "call", "skill", "--input", JSON.stringify({ name: "commit" })], { cwd: ws.root, env: ws.env });
    expect(loaded.json<{ content: string }>().content).toContain("MY-COMMIT");
    expect(loaded.json<{ content: string }>().content).not.toContain("REPO-COMMIT");
    const tools = await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env });
    const skipped = tools
      .json<{ diagnostics: { file?: string; message: string }[] }>()
      .diagnostics.filter((d) => d.file === ws.path(".claude", "skills", "commit", "SKILL.md"));
    expect(skipped.map((d) => d.message)).toEqual([expect.stringContaining(`already loaded from ${join(ws.keelHome, "skills", "commit", "SKILL.md")}`)]);
  });

  it("a skill folder linked to a workspace folder cannot show a file a read deny rule keeps from the model", async () => {
    ws = makeWorkspace({ "SKILL.md": SKILL("root", "Helps with the project", "Root skill."), ".env": "API_TOKEN=hunter2", "notes.md": "NOTES" });
    mkdirSync(ws.path(".claude", "skills"), { recursive: true });
    symlinkSync("../..", ws.path(".claude", "skills", "root"));
    ws.writeUserConfig({ permissions: { deny: ["read_file(.env)"] } });
    const denied = await runKeel(["--json", "call", "skill", "--input", JSON.stringify({ name: "root", file: ".env" })], { cwd: ws.root, env: ws.env });
    expect(denied.exitCode).toBe(1);
    expect(denied.json()).toMatchObject({ ok: false, code: "permission_denied" });
    expect(denied.stdout).not.toContain("hunter2");
    expect(denied.json().content).toContain('deny rule "read_file(.env)"');
    const allowed = await runKeel(["--json", "call", "skill", "--input", JSON.stringify({ name: "root", file: "notes.md" })], { cwd: ws.root, env: ws.env });
    expect(allowed.json()).toMatchObject({ ok: true, content: "NOTES" });
  });

  it("reads front matter that is not valid YAML the way Claude Code does, with a note", async () => {
    ws = makeWorkspace({
      ".claude/skills/loose/SKILL.md": "---\nname: loose\ndescription: Use this when: the user asks for it. Examples: <example>x</example>\n---\nLOOSE",
    });
    const r = await runKeel(["--json", "call", "skill", "--input", '{"name":"loose"}'], { cwd: ws.root, env: ws.env });
    expect(r.json<{ ok: boolean; content: string }>().content).toContain("LOOSE");
    const tools = await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env });
    const note = tools.json<{ diagnostics: { source: string; severity: string; message: string }[] }>().diagnostics.find((d) => d.source === "skill")!;
    expect(note.severity).toBe("info");
    expect(note.message).toMatch(/not valid YAML/);
  });

  it("a loaded skill's allowed-tools approve matching calls in the session (user-level skill), but not a project skill of an untrusted workspace", async () => {
    ws = makeWorkspace({
      ".claude/skills/local/SKILL.md": "---\nname: local\ndescription: Local deploy\nallowed-tools: Bash(echo:*)\n---\nDeploy locally.",
    });
    mkdirSync(join(ws.keelHome, "skills", "deploy"), { recursive: true });
    writeFileSync(
      join(ws.keelHome, "skills", "deploy", "SKILL.md"),
      "---\nname: deploy\ndescription: Deploy\nallowed-tools: Bash(echo:*)\n---\nRun echo deployed.",
    );
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    const run = async (skill: string) => {
      const before = server.requests.length;
      // every run ends paused on an approval, so exactly the replies it uses are queued
      server.push(
        { toolCalls: [{ id: "s1", name: "skill", arguments: { name: skill } }] },
        { toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo deployed" } }] },
        ...(skill === "deploy" ? [{ toolCalls: [{ id: "b2", name: "bash", arguments: { command: "touch pwned" } }] }] : []),
      );
      const r = await runKeel(["--json", "run", "deploy it"], { cwd: ws.root, env: ws.env });
      return { r: r.json<{ reason: string; sessionId: string }>(), requests: server.requests.slice(before) };
    };
    const user = await run("deploy");
    // echo ran without a prompt (approved by the skill); touch is not in allowed-tools, so the run pauses there
    expect(user.r.reason).toBe("awaiting_approval");
    expect(user.requests[2]!.messages.at(-1)!.content).toContain("deployed");
    expect(ws.exists("pwned")).toBe(false);
    const events = readFileSync(ws.path(".keel", "sessions", user.r.sessionId, "events.jsonl"), "utf8");
    expect(events).toContain('"approvedBy":"hook: skill deploy (allowed-tools)"');
    const project = await run("local");
    expect(project.r.reason).toBe("awaiting_approval");
    expect(project.requests).toHaveLength(2);
  });
});
