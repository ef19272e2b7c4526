import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** The text of the last user message the model was sent. */
function lastUserText(): string {
  const messages = server.requests.at(-1)!.messages;
  return String([...messages].reverse().find((m) => m.role === "user")!.content);
}

describe("allowed-tools of a trusted workspace's skills and prompt commands approve calls only as keel trust approved them", () => {
  it("a Claude command's !`cmd` lines run under its approved allowed-tools; changed allowed-tools hold them back until the next keel trust", async () => {
    ws = makeWorkspace({ ".claude/commands/status.md": "---\nallowed-tools: Bash(echo:*)\n---\nEcho: !`echo cmd-ran`" }, { git: true });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    const keel = (...args: string[]) => runKeel(args, { cwd: ws!.root, env: ws!.env });
    const trusted = await keel("--json", "trust");
    expect(trusted.json().approved).toMatchObject([{ kind: "command", name: "/status (.claude/commands/status.md)" }]);
    server.push({ text: "ok" });
    await keel("run", "/status");
    expect(lastUserText()).toBe("Echo: cmd-ran");
    ws.write(".claude/commands/status.md", "---\nallowed-tools: Bash(echo:*), Bash(touch:*)\n---\nEcho: !`echo cmd-ran`");
    server.push({ text: "ok" });
    await keel("run", "/status");
    expect(lastUserText()).toMatch(/^Echo: \[output of `echo cmd-ran` not included: its allowed-tools were added or changed since this workspace was trusted/);
    await keel("trust");
    server.push({ text: "ok" });
    await keel("run", "/status");
    expect(lastUserText()).toBe("Echo: cmd-ran");
  });

  it("a command a workflow of the same name hides never runs, so keel trust does not list it and nothing warns that it is held", async () => {
    ws = makeWorkspace(
      {
        ".claude/commands/status.md": "---\nallowed-tools: Bash(echo:*)\n---\nEcho: !`echo cmd-ran`",
        ".keel/workflows/status.json": { name: "status", steps: ["the workflow wins"] },
      },
      { git: true },
    );
    const keel = (...args: string[]) => runKeel(["--json", ...args], { cwd: ws!.root, env: ws!.env });
    expect((await keel("trust")).json().approved).toEqual([]);
    ws.write(".claude/commands/status.md", "---\nallowed-tools: Bash(touch:*)\n---\nEcho: !`echo cmd-ran`");
    const messages = ((await keel("tools")).json().diagnostics as { message: string }[]).map((d) => d.message);
    expect(messages).toContainEqual(expect.stringContaining('Command /status is not available as a workflow: the workflow "status"'));
    expect(messages.filter((m) => m.includes("was added or changed since"))).toEqual([]);
  });

  it("a workspace skill's allowed-tools approve calls once keel trust approved them; changed, the calls ask again", async () => {
    ws = makeWorkspace(
      { ".claude/skills/local/SKILL.md": "---\nname: local\ndescription: Local deploy\nallowed-tools: Bash(echo:*)\n---\nRun echo deployed." },
      { git: true },
    );
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    // Exactly the replies a run uses are queued: a paused run stops before the third.
    const run = async (pauses: boolean) => {
      server.push(
        { toolCalls: [{ id: "s1", name: "skill", arguments: { name: "local" } }] },
        { toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo deployed" } }] },
        ...(pauses ? [] : [{ text: "done" }]),
      );
      const before = server.requests.length;
      const r = await runKeel(["--json", "run", "deploy it"], { cwd: ws!.root, env: ws!.env });
      // What the skill tool told the model (the tool result in the request after the skill call).
      const told = String(server.requests[before + 1]!.messages.find((m) => m.role === "tool" && m.tool_call_id === "s1")!.content);
      return { reason: r.json<{ reason: string }>().reason, told };
    };
    const trusted = await runKeel(["--json", "trust"], { cwd: ws.root, env: ws.env });
    expect(trusted.json().approved).toMatchObject([{ kind: "skill", name: "local (.claude/skills/local/SKILL.md)" }]);
    const approved = await run(false);
    expect(approved.reason).toBe("answer"); // echo approved by the skill: no prompt
    expect(approved.told).toContain("these calls need no approval: Bash(echo:*)");
    ws.write(".claude/skills/local/SKILL.md", "---\nname: local\ndescription: Local deploy\nallowed-tools: Bash(*)\n---\nRun echo deployed.");
    const held = await run(true);
    expect(held.reason).toBe("awaiting_approval");
    expect(held.told).not.toContain("need no approval"); // the model is not told what is not so
  });
});
