import { describe, expect, it } from "vitest";
import { parseClaudeHooks } from "../../../manifests/hooks/claude-hooks-schema.js";

const origin = { file: "/ws/.claude/settings.json", path: ["hooks"], level: "workspace" as const, dir: "/ws" };

describe("parseClaudeHooks reads Claude Code's hooks format and names file and JSON path for what it skips", () => {
  it("reads command hooks with matcher, timeout (default 60 s), if and async; skips other types and bad entries with a reason", () => {
    const { hooks, issues } = parseClaudeHooks(
      {
        PreToolUse: [
          {
            matcher: "Edit|Write",
            hooks: [
              { type: "command", command: "lint.sh", timeout: 5 },
              { type: "prompt", prompt: "judge" },
            ],
          },
          { matcher: "Bash", hooks: [{ type: "command", command: "guard.sh", if: "Bash(git push:*)" }, { type: "command" }] },
          { matcher: "(", hooks: [{ type: "command", command: "never.sh" }] },
        ],
        PostToolUse: [
          {
            hooks: [
              { type: "command", command: "bg.sh", async: true },
              { type: "command", command: "wake.sh", asyncRewake: true },
            ],
          },
        ],
        Stop: "not a list",
        NoSuchEvent: [],
        _comment: "ignored",
      },
      origin,
    );
    expect(hooks.map((h) => [h.event, h.matcher, h.command, h.timeoutSec, h.if, h.background, h.path])).toEqual([
      ["PreToolUse", "Edit|Write", "lint.sh", 5, undefined, undefined, "hooks.PreToolUse[0].hooks[0]"],
      ["PreToolUse", "Bash", "guard.sh", 60, "Bash(git push:*)", undefined, "hooks.PreToolUse[1].hooks[0]"],
      ["PostToolUse", undefined, "bg.sh", 60, undefined, "async", "hooks.PostToolUse[0].hooks[0]"],
      ["PostToolUse", undefined, "wake.sh", 60, undefined, "rewake", "hooks.PostToolUse[0].hooks[1]"],
    ]);
    const byPath = Object.fromEntries(issues.map((i) => [i.path, i.message]));
    expect(Object.keys(byPath).sort()).toEqual(
      ["hooks.PreToolUse[0].hooks[1]", "hooks.PreToolUse[1].hooks[1]", "hooks.PreToolUse[2].matcher", "hooks.Stop", "hooks.NoSuchEvent"].sort(),
    );
    expect(byPath["hooks.PreToolUse[0].hooks[1]"]).toContain('type "prompt" are not supported');
    expect(byPath["hooks.PreToolUse[1].hooks[1]"]).toContain("command");
    for (const i of issues) expect(i.file).toBe(origin.file);
  });

  it('matcher "*" matches every tool, as Claude Code documents (it is no regular expression, and was dropped as one)', () => {
    const { hooks, issues } = parseClaudeHooks({ PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "all.sh" }] }] }, origin);
    expect(issues).toEqual([]);
    expect(hooks).toMatchObject([{ event: "PreToolUse", matcher: "*", command: "all.sh" }]);
  });

  it("in a plugin.json hooks object only Claude Code events are read (keel's lifecycle texts are not hooks)", () => {
    const { hooks, issues } = parseClaudeHooks(
      { beforePrompt: "text", SessionStart: [{ hooks: [{ type: "command", command: "cat intro.txt" }] }] },
      origin,
      true,
    );
    expect(hooks.map((h) => h.event)).toEqual(["SessionStart"]);
    expect(issues).toEqual([]);
  });
});
