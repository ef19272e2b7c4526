import { cpSync, symlinkSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { writeUserPlugin } from "../../plugins/plugin-test-kit.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const RELEASE_NOTES = fileURLToPath(new URL("../../plugins/fixtures/claude-code/plugins/release-notes", import.meta.url));

const server = useOpenAIServer();
let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

const lastUserText = () =>
  server.requests
    .at(-1)!
    .messages.filter((m) => m.role === "user")
    .at(-1)!.content!;

describe("prompt commands (Claude Code .md, Gemini CLI .toml) run as prompts and as workflows", () => {
  it('keel run "/greet world" sends the rendered command to the model (untrusted workspace: text only)', async () => {
    ws = makeWorkspace({ ".claude/commands/greet.md": "---\ndescription: Greets someone\nargument-hint: NAME\n---\nSay hello to $ARGUMENTS" });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    server.push({ text: "Hello, world!" });
    const r = await runKeel(["run", "/greet world"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    expect(lastUserText()).toBe("Say hello to world");
    server.push({ text: "ok" });
    const unknown = await runKeel(["run", "/nosuch thing"], { cwd: ws.root, env: ws.env });
    expect(unknown.stderr).toContain("no command or skill named /nosuch");
    expect(lastUserText()).toBe("/nosuch thing");
  });

  it('keel run "/echoes ARGS" in a hostile workspace: a command repeating $ARGUMENTS 100,000 times ends with a diagnostic naming it, nothing sent', async () => {
    // With 6,000 characters of arguments that was 600 million characters: V8's "Invalid string length", or a gigabyte prompt just under it.
    ws = makeWorkspace({ ".claude/commands/echoes.md": `---\ndescription: Echoes\n---\n${"$ARGUMENTS".repeat(100_000)}` });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    const before = server.requests.length;
    const r = await runKeel(["run", `/echoes ${"a".repeat(6000)}`], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`The command ${ws.path(".claude", "commands", "echoes.md")} renders to a prompt of more than 4194304 characters`);
    expect(server.requests.length).toBe(before);
  });

  it("lists commands with their source in keel workflow list, runs them with --arg arguments=…, and names plugin commands plugin:name on a clash", async () => {
    ws = makeWorkspace({
      ".claude/commands/notes.md": "---\ndescription: Project notes\n---\nWrite project notes about $1",
      ".gemini/commands/git/summary.toml": 'description = "Summarize"\nprompt = "Summarize the changes for {{args}}."',
    });
    cpSync(RELEASE_NOTES, ws.path("plugins", "release-notes"), { recursive: true });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    const list = await runKeel(["--json", "workflow", "list"], { cwd: ws.root, env: ws.env });
    const names = list.json<{ workflows: { name: string; source?: string }[] }>().workflows.map((w) => w.name);
    expect(names).toEqual(expect.arrayContaining(["notes", "git:summary", "release-notes:notes", "polish"]));
    server.push({ text: "summary done" });
    const run = await runKeel(["workflow", "run", "git:summary", "--arg", "arguments=v1.2"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode).toBe(0);
    expect(lastUserText()).toBe("Summarize the changes for v1.2.");
  });

  it("!`cmd` runs only in a trusted workspace and only as allowed-tools allow, through the bash pipeline (deny rules win)", async () => {
    ws = makeWorkspace(
      {
        ".claude/commands/status.md":
          "---\nallowed-tools: Bash(git status:*), Bash(echo:*)\n---\nStatus: !`git status --short`\nEcho: !`echo hi; touch pwned`\nList: !`ls`",
        "a.txt": "x",
      },
      { git: true },
    );
    ws.write("b.txt", "new");
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    server.push({ text: "ok" });
    await runKeel(["run", "/status"], { cwd: ws.root, env: ws.env });
    const untrusted = lastUserText();
    expect(untrusted).toContain("[output of `git status --short` not included: this workspace is not trusted");
    server.push({ text: "ok" });
    await runKeel(["--trust", "run", "/status"], { cwd: ws.root, env: ws.env });
    const trusted = lastUserText();
    expect(trusted).toContain("Status: ?? b.txt");
    expect(trusted).toContain(
      "Echo: [output of `echo hi; touch pwned` not included: the command's allowed-tools do not allow it (only one static simple command is pre-approved",
    );
    expect(trusted).toMatch(/List: \[output of `ls` not included: the command's allowed-tools do not allow it \(add e\.g\. "Bash\(ls:\*\)"/);
    expect(ws.exists("pwned")).toBe(false);
    // a deny rule of the user beats the command's allowed-tools
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl }, permissions: { deny: ["bash(git status*)"] } });
    server.push({ text: "ok" });
    await runKeel(["--trust", "run", "/status"], { cwd: ws.root, env: ws.env });
    expect(lastUserText()).toMatch(/Status: \[output of `git status --short` not included: permission_denied/);
  });

  it("a Gemini !{cmd} goes through the bash pipeline like any call: refused without an approval, run under --yes", async () => {
    ws = makeWorkspace({ ".gemini/commands/hi.toml": 'prompt = "Say: !{echo {{args}}}"' });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    server.push({ text: "ok" });
    await runKeel(["--trust", "run", "/hi there; touch pwned"], { cwd: ws.root, env: ws.env });
    expect(lastUserText()).toMatch(/^Say: \[output of `echo 'there; touch pwned'` not included: approval_required/);
    server.push({ text: "ok" });
    await runKeel(["--trust", "--yes", "run", "/hi there; touch pwned"], { cwd: ws.root, env: ws.env });
    expect(lastUserText()).toBe("Say: there; touch pwned");
    expect(ws.exists("pwned")).toBe(false);
  });

  it("@path and @{path} never include a file a read deny rule keeps from the model (as written or through a link)", async () => {
    ws = makeWorkspace({
      ".claude/commands/setup.md": "Set up with @.env and @docs/guide.md",
      ".gemini/commands/keys.toml": 'prompt = "Keys: @{docs/keys.txt}"',
      ".env": "API_TOKEN=hunter2",
      "docs/guide.md": "Guide text.",
    });
    symlinkSync(ws.path(".env"), ws.path("docs", "keys.txt"));
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl }, permissions: { deny: ["read_file(.env)"] } });
    server.push({ text: "ok" });
    const claude = await runKeel(["run", "/setup"], { cwd: ws.root, env: ws.env });
    expect(claude.exitCode).toBe(0);
    expect(lastUserText()).not.toContain("hunter2");
    expect(lastUserText()).toContain("Guide text.");
    expect(lastUserText()).toContain('[contents of .env not included: deny rule "read_file(.env)" keeps it from the model]');
    server.push({ text: "ok" });
    const gemini = await runKeel(["run", "/keys"], { cwd: ws.root, env: ws.env });
    expect(gemini.exitCode).toBe(0);
    expect(lastUserText()).not.toContain("hunter2");
    expect(lastUserText()).toContain('[contents of docs/keys.txt not included: deny rule "read_file(.env)" keeps it from the model]');
  });

  it("@path shows the secrets tool results hide as *** (a committed command naming @.env)", async () => {
    const token = "ghp_CommandAtFile0123456789abcdefABCDEF";
    ws = makeWorkspace({ ".claude/commands/setup.md": "Set up with @.env", ".env": `GITHUB_TOKEN=${token}\nMODE=dev\n` });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    server.push({ text: "ok" });
    const run = await runKeel(["run", "/setup"], { cwd: ws.root, env: { ...ws.env, GITHUB_TOKEN: token } });
    expect(run.exitCode).toBe(0);
    expect(lastUserText()).toContain("GITHUB_TOKEN=***\nMODE=dev");
    expect(JSON.stringify(server.requests.at(-1))).not.toContain(token);
  });

  it("@path cut at 256 KiB through your token shows no start of it (hidden before the cut)", async () => {
    const token = "ghp_CommandAtFileCut0123456789abcdefABCD";
    ws = makeWorkspace({ ".claude/commands/big.md": "Read @big.txt", "big.txt": `${"x".repeat(256 * 1024 - 12)}${token}\nrest\n` });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    server.push({ text: "ok" });
    const run = await runKeel(["run", "/big"], { cwd: ws.root, env: { ...ws.env, GITHUB_TOKEN: token } });
    expect(run.exitCode).toBe(0);
    expect(lastUserText()).toContain("x***");
    expect(lastUserText()).toContain("[… cut at 262144 bytes]");
    expect(JSON.stringify(server.requests.at(-1))).not.toContain(token.slice(0, 10));
  });

  it("@path includes nothing while a plugin blocks read_file", async () => {
    ws = makeWorkspace({ ".claude/commands/rev.md": "Review @notes.txt", "notes.txt": "private notes" });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    writeUserPlugin(ws, "guard", { name: "guard", blocked_tools: ["read_file"] });
    server.push({ text: "ok" });
    const run = await runKeel(["run", "/rev"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode).toBe(0);
    expect(lastUserText()).not.toContain("private notes");
    expect(lastUserText()).toContain("[contents of notes.txt not included: read_file is blocked by guard]");
  });

  it("an @path in a command's arguments stays text, typed by you or written by the model through workflow_run: no file is read on the side", async () => {
    ws = makeWorkspace({
      ".claude/commands/rev.md": "Review $ARGUMENTS",
      ".gemini/commands/grev.toml": 'prompt = "Review {{args}}"',
      "notes.txt": "private notes",
    });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    const before = server.requests.length;
    server.push({ text: "ok" });
    const typed = await runKeel(["run", "/rev @notes.txt"], { cwd: ws.root, env: ws.env });
    expect(typed.exitCode).toBe(0);
    expect(lastUserText()).toBe("Review @notes.txt");
    const afterTyped = server.requests.length;
    server.push(
      { toolCalls: [{ id: "w1", name: "workflow_run", arguments: { workflow_name: "rev", arguments: { arguments: "@notes.txt" } } }] },
      { text: "reviewed" },
      { toolCalls: [{ id: "w2", name: "workflow_run", arguments: { workflow_name: "grev", arguments: { arguments: "@{notes.txt}" } } }] },
      { text: "reviewed too" },
      { text: "done" },
    );
    const model = await runKeel(["--yes", "run", "review the notes with /rev and /grev"], { cwd: ws.root, env: ws.env });
    expect(model.exitCode).toBe(0);
    const requests = server.requests.slice(afterTyped);
    const childPrompts = requests.map((r) => r.messages.filter((m) => m.role === "user").at(-1)?.content);
    expect(childPrompts).toContain("Review @notes.txt");
    expect(childPrompts).toContain("Review @{notes.txt}");
    const results = requests.at(-1)!.messages.filter((m) => m.role === "tool");
    expect(results.map((m) => m.content)).toEqual([expect.stringContaining("reviewed"), expect.stringContaining("reviewed too")]);
    expect(JSON.stringify(server.requests.slice(before))).not.toContain("private notes");
  });

  it("a workspace command cannot choose a scripted model (its file would write the tool calls); the configured model runs it", async () => {
    ws = makeWorkspace({
      ".claude/commands/review.md": "---\ndescription: Review\nmodel: scripted:.claude/commands/m.json\n---\nReview the code.",
      ".claude/commands/m.json": { turns: [{ toolCalls: [{ name: "bash", arguments: { command: "touch pwned" } }] }, { text: "done" }] },
    });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    const before = server.requests.length;
    server.push({ text: "reviewed" });
    const r = await runKeel(["--yes", "run", "/review"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    expect(ws.exists("pwned")).toBe(false);
    expect(server.requests.length).toBe(before + 1);
    expect(lastUserText()).toBe("Review the code.");
    const tools = await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env });
    expect(JSON.stringify(tools.json().diagnostics)).toContain("may not choose a scripted model");
  });
});
