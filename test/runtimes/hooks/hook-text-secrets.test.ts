import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const TOKEN = "ghp_HookTextSecret0123456789abcdefABCDEF";

describe("what your hooks say to the model hides the credentials tool results hide", () => {
  it("a PostToolUse hook's exit-2 stderr and a PreToolUse hook's additionalContext show your token as ***", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    // Your own hooks run with your environment: a failing one may print what it used (a `set -x` trace, curl's error).
    const context = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "using TOKEN_VALUE" } });
    const pre = `printf '%s' '${context}' | sed "s/TOKEN_VALUE/$GITHUB_TOKEN/"`;
    const post = 'echo "upload failed: Authorization: token $GITHUB_TOKEN" >&2; exit 2';
    writeFileSync(
      join(ws.keelHome, "config.json"),
      JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: pre }] }],
          PostToolUse: [{ matcher: "*", hooks: [{ type: "command", command: post }] }],
        },
      }),
    );
    const env = { ...ws.env, GITHUB_TOKEN: TOKEN };
    const r = await runKeel(["--json", "call", "list_dir", "--input", '{"path": "."}'], { cwd: ws.root, env });
    const obs = r.json();
    expect(obs.content).toContain("PostToolUse hook feedback: upload failed: Authorization: token ***");
    expect(obs.messages.beforeTool).toEqual(["PreToolUse hook: using ***"]);
    expect(r.stdout).not.toContain(TOKEN);
    const events = readFileSync(ws.path(".keel", "events.jsonl"), "utf8");
    expect(events).not.toContain(TOKEN);
  });

  it("a UserPromptSubmit hook's context reaches the model with your token as ***", async () => {
    ws = makeWorkspace({ "script.json": { turns: [{ text: "done" }] } }, { git: true });
    writeFileSync(
      join(ws.keelHome, "config.json"),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: 'echo "deploy key is $GITHUB_TOKEN"' }] }] } }),
    );
    const env = { ...ws.env, GITHUB_TOKEN: TOKEN };
    const r = await runKeel(["run", "--model", "scripted:script.json", "go"], { cwd: ws.root, env });
    expect(r.exitCode).toBe(0);
    const sessions = readdirSync(ws.path(".keel", "sessions"));
    const dir = ws.path(".keel", "sessions", sessions[0]!);
    const stored = readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"))
      .join("\n");
    expect(stored).toContain("deploy key is ***");
    expect(stored).not.toContain(TOKEN);
  });
});
