import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { maskCommand } from "../../../core/mask-command.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe("your own hooks' credentials stay out of the workspace's events", () => {
  it("maskCommand hides webhook paths, credential options, variables and authorization values; keeps the rest", () => {
    expect(maskCommand("curl -s -X POST https://hooks.slack.com/services/T0/B0/SECRET -d @-")).toBe("curl -s -X POST https://hooks.slack.com/*** -d @-");
    expect(maskCommand(`notify --token SECRET1 --api-key=SECRET2 -u bot:SECRET3 -H "Authorization: Bearer SECRET4"`)).toBe(
      `notify --token *** --api-key=*** -u *** -H "Authorization: Bearer ***"`,
    );
    expect(maskCommand("SLACK_WEBHOOK_URL=SECRET5 API_KEY='SECRET6' ./notify.sh --verbose")).toBe("SLACK_WEBHOOK_URL=*** API_KEY='***' ./notify.sh --verbose");
    expect(maskCommand('npx prettier --write "$FILE"')).toBe('npx prettier --write "$FILE"');
  });

  it("a $KEEL_HOME hook with a webhook URL and a token is recorded masked in .keel/events.jsonl", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const command = "true https://hooks.slack.com/services/T000/B000/WEBHOOK-SECRET --token=TOKEN-SECRET";
    writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ hooks: { PostToolUse: [{ matcher: "*", hooks: [{ type: "command", command }] }] } }));
    const r = await runKeel(["--json", "call", "list_dir", "--input", '{"path": "."}'], { cwd: ws.root, env: ws.env });
    expect(r.json()).toMatchObject({ ok: true });
    const events = readFileSync(ws.path(".keel", "events.jsonl"), "utf8");
    expect(events).toContain('"command":"true https://hooks.slack.com/*** --token=***"');
    expect(events).not.toContain("WEBHOOK-SECRET");
    expect(events).not.toContain("TOKEN-SECRET");
  });
  it("a $KEEL_HOME hook that asks for approval is named masked in the session's events and the approval text", async () => {
    ws = makeWorkspace(
      { "notes.txt": "hi\n", "script.json": { turns: [{ toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] }, { text: "done" }] } },
      { git: true },
    );
    const ask = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask" } });
    const command = `API_TOKEN=ASK-HOOK-SECRET echo '${ask}'`;
    writeFileSync(
      join(ws.keelHome, "config.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "read_file", hooks: [{ type: "command", command }] }] } }),
    );
    const r = await runKeel(["run", "--model", "scripted:script.json", "go"], { cwd: ws.root, env: ws.env });
    expect(r.stdout + r.stderr).not.toContain("ASK-HOOK-SECRET");
    const sessions = readdirSync(ws.path(".keel", "sessions"));
    expect(sessions.length).toBe(1);
    const events = readFileSync(ws.path(".keel", "sessions", sessions[0]!, "events.jsonl"), "utf8");
    expect(events).toContain("PreToolUse hook `API_TOKEN=***");
    expect(events).not.toContain("ASK-HOOK-SECRET");
  });
  it("a hook in the workspace's .claude/settings.local.json (yours, uncommitted) is recorded masked too", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const command = "true https://hooks.slack.com/services/T000/B000/LOCAL-WEBHOOK-SECRET";
    ws.write(".claude/settings.local.json", JSON.stringify({ hooks: { PostToolUse: [{ matcher: "*", hooks: [{ type: "command", command }] }] } }));
    const r = await runKeel(["--json", "--trust", "call", "list_dir", "--input", '{"path": "."}'], { cwd: ws.root, env: ws.env });
    expect(r.json()).toMatchObject({ ok: true });
    const events = readFileSync(ws.path(".keel", "events.jsonl"), "utf8");
    expect(events).toContain('"type":"command_hook"');
    expect(events).toContain('"command":"true https://hooks.slack.com/***"');
    expect(events).not.toContain("LOCAL-WEBHOOK-SECRET");
  });
});
