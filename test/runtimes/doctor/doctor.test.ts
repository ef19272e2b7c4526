import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

interface Check {
  name: string;
  status: "ok" | "warn" | "fail" | "skip";
  message: string;
  fix?: string;
}

const server = useOpenAIServer();

describe("keel doctor", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });
  const doctor = async (w: TempWorkspace, ...flags: string[]) => {
    const r = await runKeel([...flags, "--json", "doctor"], { cwd: w.root, env: w.env });
    const report = r.json<{ ok: boolean; checks: Check[] }>();
    return { exitCode: r.exitCode, report, byName: (name: string) => report.checks.find((c) => c.name === name) };
  };

  it("all green with a reachable model, a git repository and no servers; the model is asked once (GET /models)", async () => {
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ model: { name: "test-model", baseUrl: server.baseUrl } });
    const { exitCode, report, byName } = await doctor(ws);
    expect(exitCode).toBe(0);
    expect(report.ok).toBe(true);
    expect(byName("node")).toMatchObject({ status: "ok", message: expect.stringContaining(process.versions.node) });
    expect(byName("model")).toMatchObject({ status: "ok", message: expect.stringContaining(server.baseUrl) });
    expect(byName("git")).toMatchObject({ status: "ok" });
    expect(byName("mcp")).toMatchObject({ status: "skip" });
    expect(["ok", "skip"]).toContain(byName("sandbox")!.status);
    expect(server.requests).toHaveLength(0); // no chat request: only the model list was read
  });

  it("a model URL's credentials (user:key@, ?api_key=) are *** in the report (user info goes as Basic authorization, not in the URL)", async () => {
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ model: { name: "m", baseUrl: "http://proxy:DOCTOR-PASS-SECRET@127.0.0.1:1/v1?api_key=DOCTOR-KEY-SECRET" } });
    const r = await runKeel(["--json", "doctor"], { cwd: ws.root, env: ws.env });
    const model = r.json<{ checks: Check[] }>().checks.find((c) => c.name === "model")!;
    expect(model).toMatchObject({ status: "fail", message: expect.stringContaining("http://127.0.0.1:1/v1/models?api_key=***") });
    expect(r.stdout).not.toMatch(/DOCTOR-(PASS|KEY)-SECRET/);
  });

  it("no model configured is a skipped check with how to configure one, not a failure", async () => {
    ws = makeWorkspace();
    const { exitCode, byName } = await doctor(ws);
    expect(byName("model")).toMatchObject({ status: "skip", message: expect.stringContaining("no model configured") });
    expect(byName("model")!.fix).toContain("keel.config.json");
    expect(byName("git")).toMatchObject({ status: "warn", fix: expect.stringContaining("git init") });
    expect(exitCode).toBe(0);
  });

  it("an unreachable model, a failed MCP server and a plugin error each fail with a fix; exit 1; text output says fix:", async () => {
    ws = makeWorkspace({
      ".mcp.json": { mcpServers: { gone: { command: "keel-test-no-such-command" } } },
      "plugins/bad/plugin.json": { description: "no name" },
    });
    ws.writeUserConfig({ model: { name: "m", baseUrl: "http://127.0.0.1:1/v1" } });
    const { exitCode, report, byName } = await doctor(ws, "--trust");
    expect(exitCode).toBe(1);
    expect(report.ok).toBe(false);
    expect(byName("model")).toMatchObject({ status: "fail", fix: expect.stringContaining("baseUrl") });
    expect(byName("mcp:gone")).toMatchObject({ status: "fail", fix: expect.stringContaining("not on PATH") });
    expect(report.checks.find((c) => c.name === "plugin")).toMatchObject({ status: "fail", message: expect.stringContaining("name is required") });
    const text = await runKeel(["--trust", "doctor"], { cwd: ws.root, env: ws.env });
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toMatch(/✗ mcp:gone/);
    expect(text.stdout).toMatch(/fix: .*not on PATH/);
  });

  it("an untrusted workspace server is a warning that says how to trust", async () => {
    ws = makeWorkspace({ ".mcp.json": { mcpServers: { local: { command: "node", args: ["-e", ""] } } } });
    const { exitCode, byName } = await doctor(ws);
    expect(byName("mcp:local")).toMatchObject({ status: "warn", fix: expect.stringContaining("keel trust") });
    expect(byName("trust")).toMatchObject({ status: "warn", fix: expect.stringContaining("keel trust") });
    expect(exitCode).toBe(0);
  });

  it("untrusted: a prompt command whose shell lines need trust is named by the trust check (not 'nothing here needs it'); keel trust clears it", async () => {
    ws = makeWorkspace({
      ".claude/commands/review.md": "---\ndescription: Review\nallowed-tools: Bash(git status:*)\n---\nChanged: !`git status --short`\n",
    });
    const before = await doctor(ws);
    expect(before.byName("trust")).toMatchObject({
      status: "warn",
      message: expect.stringContaining("command /review"),
      fix: expect.stringContaining("keel trust"),
    });
    expect(before.exitCode).toBe(0);
    expect((await runKeel(["trust"], { cwd: ws.root, env: ws.env })).exitCode).toBe(0);
    expect((await doctor(ws)).byName("trust")).toMatchObject({ status: "ok", message: expect.stringContaining("is trusted") });
  });

  it("a config keel cannot load is a failed check; the other checks still run", async () => {
    ws = makeWorkspace({ "keel.config.json": "{ not json" });
    const { exitCode, byName, report } = await doctor(ws);
    expect(exitCode).toBe(1);
    expect(byName("config")).toMatchObject({ status: "fail", message: expect.stringContaining("keel.config.json") });
    expect(report.checks.map((c) => c.name)).toEqual(["node", "config", "git"]);
  });

  it("lists the temp files a killed keel left in the workspace root, .keel/ and .keel/state/ (not a live writer's), and removes nothing", async () => {
    ws = makeWorkspace({ "src/keep.txt": "x" }, { git: true });
    const dead = Number(execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }));
    mkdirSync(ws.path(".keel", "state"), { recursive: true });
    const planted = [
      ws.path(`.notes.md.keel-tmp-${dead}-0123456789ab`),
      ws.path(".keel", `.events.jsonl.keel-tmp-${dead}-0123456789ab`),
      ws.path(".keel", "state", `.tasks.json.keel-tmp-${dead}-0123456789ab`),
      ws.path(".old.txt.0123456789ab.keel-tmp"),
      ws.path(`.live.txt.keel-tmp-${process.pid}-0123456789ab`),
      ws.path("src", `.keep.txt.keel-tmp-${dead}-0123456789ab`), // below the root: not walked
    ];
    for (const file of planted) writeFileSync(file, "half");
    const { exitCode, byName } = await doctor(ws);
    const temps = byName("temp files")!;
    expect(temps).toMatchObject({ status: "warn", fix: expect.stringContaining("delete them") });
    expect(temps.message).toContain(`3 temp files left by a keel that was killed while writing`);
    for (const name of [`.notes.md.keel-tmp-${dead}-0123456789ab`, `.keel/.events.jsonl.keel-tmp-${dead}`, `.keel/state/.tasks.json.keel-tmp-${dead}`])
      expect(temps.message).toContain(name);
    expect(temps.message).toContain('1 temp file left by an older keel (no pid in the name): ".old.txt.0123456789ab.keel-tmp"');
    expect(temps.message).not.toContain("live.txt");
    expect(temps.message).not.toContain("keep.txt");
    expect(exitCode).toBe(0);
    expect(readdirSync(ws.root).filter((n) => n.includes("keel-tmp"))).toHaveLength(3);
    const clean = makeWorkspace({}, { git: true });
    try {
      expect((await doctor(clean)).byName("temp files")).toMatchObject({ status: "ok" });
    } finally {
      clean.cleanup();
    }
  });
});
