import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

/**
 * The exit-code table of the README (section Exit codes): 0 ok, 1 the thing asked for failed,
 * 2 usage or configuration error with a one-line message. Each row is run for real.
 */
describe("exit codes are consistent across commands", () => {
  let ws: TempWorkspace;
  let broken: TempWorkspace;
  beforeAll(() => {
    ws = makeWorkspace({
      "plugins/bad/plugin.json": { description: "no name" },
      ".mcp.json": { mcpServers: { gone: { command: "keel-test-no-such-command" } } },
      ".claw-workflows.json": { workflows: [{ name: "review", steps: [{ tool: "read_file", input: { path: "missing.txt" } }] }] },
      ".keel/sessions/s-20261125-101500-ab12/session.json": { id: "s-20261125-101500-ab12" },
    });
    broken = makeWorkspace({ "keel.config.json": '{"permissions": {"deny": 5}}' });
  });
  afterAll(() => {
    ws.cleanup();
    broken.cleanup();
  });
  const keel = (args: string[], w = ws) => runKeel(args, { cwd: w.root, env: w.env });

  it.each([
    [["--version"], 0, ""],
    [["tools"], 0, ""],
    [["call", "read_file", "--input", '{"path":"plugins/bad/plugin.json"}'], 0, ""],
    [["call", "reed_file"], 1, 'Did you mean "read_file"'],
    [["plugins"], 1, "name is required"],
    [["--trust", "mcp", "list"], 1, "command not found"],
    [["--trust", "mcp"], 1, "command not found"],
    [["--trust", "workflow", "run", "review"], 1, ""],
    [["tols"], 2, "Did you mean tools?"],
    [["mcp", "lst"], 2, 'Did you mean "list"?'],
    [["task", "lst"], 2, "Did you mean list?"],
    [["tools", "--bogus"], 2, "unknown option '--bogus'"],
    [["task", "list", "--status", "bogus"], 2, "Allowed choices are pending, todo, open, in_progress"],
    [["task", "add", "x", "--priority", "urgent"], 2, "Allowed choices are critical, high, medium, low"],
    [["config", "list", "--source", "nope"], 2, "Allowed choices are user, legacy"],
    [["call", "read_file", "--input", "{nope"], 2, "--input is not valid JSON"],
    [["workflow", "run", "reveiw"], 2, 'Did you mean "review"'],
    [["sessions", "show", "nope"], 2, 'No session "nope"'],
    [["sessions", "show", "s-20261125"], 2, 'Did you mean "s-20261125-101500-ab12"'],
    [["mcp", "doctor", "gonne"], 2, 'Did you mean "gone"'],
    [["team", "messages", "t", "--limit", "0"], 2, "--limit needs a positive integer"],
  ] as const)("keel %j exits %i", async (args, code, text) => {
    const r = await keel([...args]);
    expect(r.exitCode, r.stderr).toBe(code);
    if (text) expect(r.stdout + r.stderr).toContain(text);
    if (code === 2) {
      // One message, never a JSON schema dump.
      expect(r.stderr).not.toContain('"type":"object"');
      expect(r.stderr).not.toContain("Expected input schema");
    }
  });

  it("an invalid config value is a configuration error (exit 2) naming the file", async () => {
    const r = await keel(["tools"], broken);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(broken.path("keel.config.json"));
  });

  it("a KEEL_HOME that is a file (or lies under one) is a configuration error (exit 2) naming it and saying what to do, not a bare EEXIST", async () => {
    const file = ws.path("..", "home-is-a-file");
    writeFileSync(file, "");
    for (const home of [file, join(file, "sub")])
      for (const args of [["tools"], ["trust"]]) {
        const r = await runKeel(args, { cwd: ws.root, env: { ...ws.env, KEEL_HOME: home } });
        expect(r.exitCode, r.stderr).toBe(2);
        expect(r.stderr).toContain(`KEEL_HOME (${home})`);
        expect(r.stderr).toContain("Point KEEL_HOME at a folder");
        expect(r.stderr).not.toContain("EEXIST");
      }
  });

  it("a tool input the CLI wrapper built but the schema rejects is a usage error in one line (exit 2)", async () => {
    const bad = await keel(["task", "show", "has space"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).not.toContain("Expected input schema");
  });
  it("a missing task, team or config key says which keel command shows what exists, besides the tool the model would call", async () => {
    const task = await keel(["task", "show", "task_99"]);
    expect(task.stdout + task.stderr).toContain("Use task_list (`keel task list`) to see them.");
    const team = await keel(["team", "show", "nobody"]);
    expect(team.stdout + team.stderr).toContain("Create it with team_create (`keel team create NAME MEMBER…`).");
    const config = await keel(["config", "get", "agent.notAKey"]);
    expect(config.stdout + config.stderr).toContain("config_list (`keel config list`)");
  });
});
