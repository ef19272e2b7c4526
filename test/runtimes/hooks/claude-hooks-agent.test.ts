import { afterEach, describe, expect, it } from "vitest";
import { requestText, useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

/** A hooks object with one command hook for `event` (Claude Code's settings format). */
function hooksOf(event: string, command: string, matcher?: string) {
  return { [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: "command", command }] }] };
}

/** A node hook script (CommonJS): reads its stdin JSON into `input`, then runs `body`. */
function nodeHook(body: string): string {
  return `let raw = ""; process.stdin.on("data", (d) => (raw += d)); process.stdin.on("end", () => { const input = JSON.parse(raw); ${body} });`;
}

/** Points the model at the test server and declares `hooks` in the user config (user level: they run in an untrusted workspace). */
function useHooks(w: TempWorkspace, hooks: object): void {
  w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl }, hooks });
}

describe("Claude Code hooks in the agent (keel run against a local OpenAI-compatible server)", () => {
  it("a PostToolUse hook's additionalContext reaches the model with the tool result", async () => {
    const before = server.requests.length;
    ws = makeWorkspace({
      "post.cjs": nodeHook(
        `console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "style check: saw " + input.tool_response.stdout.trim() + " from " + input.tool_name } }));`,
      ),
    });
    useHooks(ws, hooksOf("PostToolUse", `node "${ws.path("post.cjs")}"`, "Bash"));
    server.push({ toolCalls: [{ name: "bash", arguments: { command: "echo hello-from-bash" } }] }, { text: "done" });
    const r = await runKeel(["--yes", "run", "run echo"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    const second = server.requests[before + 1]!;
    const toolMessage = second.messages.find((m) => m.role === "tool")!;
    expect(toolMessage.content).toContain("hello-from-bash");
    expect(toolMessage.content).toContain("PostToolUse hook context: style check: saw hello-from-bash from Bash");
  });

  it("a PreToolUse hook answering continue: false ends the turn with its stopReason; the calls after it do not run", async () => {
    const before = server.requests.length;
    ws = makeWorkspace({ "stop.cjs": nodeHook(`console.log(JSON.stringify({ continue: false, stopReason: "Deploy freeze until Monday" }));`) });
    useHooks(ws, hooksOf("PreToolUse", `node "${ws.path("stop.cjs")}"`, "Bash"));
    server.push({
      toolCalls: [
        { id: "a", name: "bash", arguments: { command: "touch first" } },
        { id: "b", name: "write_file", arguments: { path: "second.txt", content: "x" } },
      ],
    });
    const r = await runKeel(["--yes", "--json", "run", "deploy"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    const out = r.json<{ reason: string; message: string }>();
    expect(out.reason).toBe("hook_stop");
    expect(out.message).toContain("Deploy freeze until Monday");
    expect(server.requests.length - before).toBe(1);
    expect(ws.exists("first")).toBe(false);
    expect(ws.exists("second.txt")).toBe(false);
  });

  it("a UserPromptSubmit hook's stdout reaches the model before the prompt; a SessionStart hook's too; exit 2 blocks the prompt", async () => {
    const before = server.requests.length;
    ws = makeWorkspace();
    useHooks(ws, {
      ...hooksOf("UserPromptSubmit", `node -e 'let r="";process.stdin.on("data",d=>r+=d).on("end",()=>console.log("Sprint goal for: "+JSON.parse(r).prompt))'`),
      ...hooksOf(
        "SessionStart",
        `node -e 'let r="";process.stdin.on("data",d=>r+=d).on("end",()=>console.log("Session context ("+JSON.parse(r).source+"): main branch is frozen"))'`,
      ),
    });
    server.push({ text: "ok" });
    const r = await runKeel(["--json", "run", "fix the bug"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    const first = server.requests[before]!;
    const users = first.messages.filter((m) => m.role === "user").map((m) => m.content ?? "");
    expect(users.at(-1)).toBe("fix the bug");
    const context = users.slice(0, -1).join("\n");
    expect(context).toContain("Sprint goal for: fix the bug");
    expect(context).toContain("Session context (startup): main branch is frozen");
    expect(requestText(first)).toContain("Sprint goal for: fix the bug");
    // a resumed session runs SessionStart with source "resume"
    server.push({ text: "ok again" });
    const resumed = await runKeel(["--json", "run", "--resume", r.json().sessionId, "and now?"], { cwd: ws.root, env: ws.env });
    expect(resumed.exitCode).toBe(0);
    expect(requestText(server.requests.at(-1)!)).toContain("Session context (resume): main branch is frozen");

    useHooks(ws, hooksOf("UserPromptSubmit", "echo no secrets in prompts >&2; exit 2"));
    const count = server.requests.length;
    const blocked = await runKeel(["run", "my password is hunter2"], { cwd: ws.root, env: ws.env });
    expect(blocked.exitCode).toBe(1);
    expect(blocked.stdout + blocked.stderr).toContain("no secrets in prompts");
    expect(server.requests.length).toBe(count);
  });

  it("a Stop hook that blocks sends the agent on with its reason once; stop_hook_active lets it stop", async () => {
    const before = server.requests.length;
    ws = makeWorkspace({
      "stop.cjs": nodeHook(`if (!input.stop_hook_active) console.log(JSON.stringify({ decision: "block", reason: "run the tests before you stop" }));`),
    });
    useHooks(ws, hooksOf("Stop", `node "${ws.path("stop.cjs")}"`));
    server.push({ text: "all done" }, { text: "tests pass, now done" });
    const r = await runKeel(["--json", "run", "do the work"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    expect(server.requests.length).toBe(before + 2);
    expect(requestText(server.requests[before + 1]!)).toContain("run the tests before you stop");
    expect(r.stdout).toContain("tests pass, now done");
  });

  it("a stray matcher on UserPromptSubmit or Stop is ignored, as Claude Code does: the guard still runs", async () => {
    const before = server.requests.length;
    ws = makeWorkspace({
      "stop.cjs": nodeHook(`if (!input.stop_hook_active) console.log(JSON.stringify({ decision: "block", reason: "stray matcher, still guarding" }));`),
    });
    useHooks(ws, { ...hooksOf("Stop", `node "${ws.path("stop.cjs")}"`, "Bash"), ...hooksOf("SessionEnd", "true", "clear") });
    server.push({ text: "done" }, { text: "done after the guard" });
    const r = await runKeel(["--json", "run", "do the work"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    expect(server.requests.length).toBe(before + 2);
    expect(requestText(server.requests[before + 1]!)).toContain("stray matcher, still guarding");

    useHooks(ws, hooksOf("UserPromptSubmit", "echo blocked by a guard with a matcher >&2; exit 2", "Edit|Write"));
    const count = server.requests.length;
    const blocked = await runKeel(["run", "hello"], { cwd: ws.root, env: ws.env });
    expect(blocked.exitCode).toBe(1);
    expect(blocked.stdout + blocked.stderr).toContain("blocked by a guard with a matcher");
    expect(server.requests.length).toBe(count);
  });

  it("a Notification hook hears about a session that paused for approval", async () => {
    ws = makeWorkspace({ "notify.cjs": nodeHook(`require("node:fs").writeFileSync(process.env.CLAUDE_PROJECT_DIR + "/notified.json", raw);`) });
    useHooks(ws, hooksOf("Notification", `node "${ws.path("notify.cjs")}"`));
    server.push({ toolCalls: [{ name: "bash", arguments: { command: "touch later.txt" } }] });
    const r = await runKeel(["--json", "run", "make a file"], { cwd: ws.root, env: ws.env });
    expect(r.json()).toMatchObject({ reason: "awaiting_approval" });
    expect(ws.exists("later.txt")).toBe(false);
    const seen = JSON.parse(ws.read("notified.json"));
    expect(seen).toMatchObject({ hook_event_name: "Notification", notification_type: "permission_prompt" });
    expect(seen.message).toContain("bash");
    expect(seen.session_id).toBe(r.json().sessionId);
    expect(seen.transcript_path).toContain(seen.session_id);
  });

  it("an async PostToolUse hook runs in the background; its additionalContext reaches the model as a later message", async () => {
    const before = server.requests.length;
    ws = makeWorkspace({
      "later.cjs": nodeHook(
        `console.log(JSON.stringify({ hookSpecificOutput: { additionalContext: "background lint found 0 problems in " + input.tool_name } }));`,
      ),
    });
    ws.writeUserConfig({
      model: { name: "m", baseUrl: server.baseUrl },
      hooks: { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `node "${ws.path("later.cjs")}"`, async: true }] }] },
    });
    server.push({ toolCalls: [{ name: "bash", arguments: { command: "echo x" } }] }, { text: "done" });
    const first = await runKeel(["--yes", "--json", "run", "lint it"], { cwd: ws.root, env: ws.env });
    expect(first.exitCode).toBe(0);
    // the tool result itself does not wait for the background hook
    const toolMessage = server.requests[before + 1]!.messages.find((m) => m.role === "tool")!;
    expect(toolMessage.content).not.toContain("background lint");
    // keel waited for the hook before exiting; its output is delivered by the next model call at the latest
    server.push({ text: "noted" });
    const next = await runKeel(["run", "--resume", first.json().sessionId, "anything else?"], { cwd: ws.root, env: ws.env });
    expect(next.exitCode).toBe(0);
    const seen = server.requests
      .slice(before + 1)
      .map(requestText)
      .join("\n");
    expect(seen).toContain("ran in the background): background lint found 0 problems in Bash");
  });

  it("a sub-agent fires SubagentStop (its block sends the child on) and not UserPromptSubmit; the parent fires Stop", async () => {
    const before = server.requests.length;
    ws = makeWorkspace({
      "log.cjs": nodeHook(
        `require("node:fs").appendFileSync(process.env.CLAUDE_PROJECT_DIR + "/events.log", input.hook_event_name + "\\n"); if (input.hook_event_name === "SubagentStop" && !input.stop_hook_active) console.log(JSON.stringify({ decision: "block", reason: "child: double-check" }));`,
      ),
    });
    const log = `node "${ws.path("log.cjs")}"`;
    ws.writeUserConfig({
      model: { name: "m", baseUrl: server.baseUrl },
      permissions: { allow: ["delegate_agent"] },
      hooks: { ...hooksOf("UserPromptSubmit", log), ...hooksOf("SubagentStop", log), ...hooksOf("Stop", log) },
    });
    server.push(
      { toolCalls: [{ id: "d1", name: "delegate_agent", arguments: { prompt: "CHILD-TASK: report" } }] },
      { text: "child first answer" },
      { text: "child checked answer" },
      { text: "parent done" },
    );
    const r = await runKeel(["run", "delegate it"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    expect(requestText(server.requests[before + 2]!)).toContain("child: double-check");
    expect(ws.read("events.log").trim().split("\n")).toEqual(["UserPromptSubmit", "SubagentStop", "SubagentStop", "Stop"]);
  });

  it("SessionEnd hooks are matched on reason and SubagentStop hooks on agent_type, as Claude Code documents; Stop still takes no matcher", async () => {
    ws = makeWorkspace({
      ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews changes\n---\nREVIEWER-PROMPT",
      // each hook appends its label and what it was given
      "log.cjs": nodeHook(
        `require("node:fs").appendFileSync(process.env.CLAUDE_PROJECT_DIR + "/hooks.log", process.argv[2] + ":" + input.hook_event_name + ":" + (input.reason ?? input.agent_type ?? "-") + "\\n");`,
      ),
    });
    const log = (label: string) => `node "${ws.path("log.cjs")}" ${label}`;
    const group = (label: string, matcher?: string) => ({ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: "command", command: log(label) }] });
    ws.writeUserConfig({
      model: { name: "m", baseUrl: server.baseUrl },
      permissions: { allow: ["delegate_agent"] },
      hooks: {
        SessionEnd: [group("end-clear", "clear"), group("end-logout-or-other", "logout|other"), group("end-regex", "^oth"), group("end-all")],
        SubagentStop: [group("sub-reviewer", "reviewer"), group("sub-general", "general-purpose"), group("sub-explore", "Explore"), group("sub-all", "*")],
        Stop: [group("stop-stray", "Bash")],
      },
    });
    server.push(
      { toolCalls: [{ id: "d1", name: "delegate_agent", arguments: { agent: "reviewer", prompt: "review it" } }] },
      { text: "reviewed" },
      { toolCalls: [{ id: "d2", name: "delegate_agent", arguments: { prompt: "look around" } }] },
      { text: "looked" },
      { text: "parent done" },
    );
    const r = await runKeel(["run", "delegate twice"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = ws.read("hooks.log").trim().split("\n");
    const ran = (prefix: string) => lines.filter((l) => l.startsWith(prefix)).sort();
    expect(ran("sub-")).toEqual(
      [
        "sub-all:SubagentStop:general-purpose",
        "sub-all:SubagentStop:reviewer",
        "sub-general:SubagentStop:general-purpose",
        "sub-reviewer:SubagentStop:reviewer",
      ].sort(),
    );
    expect(ran("end-")).toEqual(["end-all:SessionEnd:other", "end-logout-or-other:SessionEnd:other", "end-regex:SessionEnd:other"]);
    expect(ran("stop-")).toEqual(["stop-stray:Stop:-"]);
  });
});
