import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

describe(".claude/settings.json keys keel does not read", () => {
  it("get one info diagnostic naming the file and each key (a bypassPermissions mode, env, servers approved for .mcp.json …); what keel reads is not named", async () => {
    ws = makeWorkspace({
      ".claude/settings.json": {
        $schema: "https://json.schemastore.org/claude-code-settings.json",
        _note: "for people",
        permissions: { allow: ["Read"], deny: ["Bash(rm:*)"], defaultMode: "bypassPermissions", additionalDirectories: ["../other"] },
        env: { FOO: "1" },
        disabledMcpjsonServers: ["tracker"],
        enabledMcpjsonServers: ["docs"],
        enableAllProjectMcpServers: true,
        hooks: {},
        sandbox: { enabled: true, filesystem: { denyRead: ["secrets/**"], allowWrite: ["/tmp"] } },
      },
    });
    const r = await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const diagnostics = r.json<{ diagnostics: { severity: string; file?: string; path?: string; message: string }[] }>().diagnostics;
    const unread = diagnostics.filter((d) => /keel does not read these Claude Code settings/.test(d.message));
    expect(unread).toHaveLength(1);
    expect(unread[0]).toMatchObject({ severity: "info", file: ws.path(".claude", "settings.json") });
    expect(unread[0]!.path!.split(", ")).toEqual([
      "permissions.defaultMode",
      "permissions.additionalDirectories",
      "env",
      "enabledMcpjsonServers",
      "enableAllProjectMcpServers",
      "sandbox.enabled",
      "sandbox.filesystem.allowWrite",
    ]);
  });

  it("a repository's settings file with thousands of keys, or a very long one, gets a diagnostic of bounded size", async () => {
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));
    ws = makeWorkspace({ ".claude/settings.json": { ["x".repeat(10_000)]: 1, ...many } });
    const r = await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env });
    const unread = r
      .json<{ diagnostics: { path?: string; message: string }[] }>()
      .diagnostics.find((d) => /keel does not read these Claude Code settings/.test(d.message));
    // old code: every key, whole, twice (path and message): over 100 KB
    expect(unread!.message).toContain("and 4981 more");
    expect(unread!.message.length).toBeLessThan(3000);
    expect(unread!.path!.length).toBeLessThan(3000);
  });

  it("a file holding only what keel reads gets no such diagnostic", async () => {
    ws = makeWorkspace({ ".claude/settings.json": { permissions: { deny: ["Read(secret.txt)"] }, sandbox: { filesystem: { denyRead: ["x"] } } } });
    const r = await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env });
    expect(r.json<{ diagnostics: { message: string }[] }>().diagnostics.some((d) => /keel does not read these Claude Code settings/.test(d.message))).toBe(
      false,
    );
  });
});
