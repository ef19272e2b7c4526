import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../core/config/load-config.js";
import { ManifestError } from "../../../core/errors.js";
import { Host } from "../../../core/host.js";
import { resolveWorkspace } from "../../../core/workspace.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

describe("loadConfig", () => {
  it("finds keel.config.json from a subfolder and merges it over the user config", async () => {
    ws = makeWorkspace({ "keel.config.json": { permissions: { deny: ["bash"] } }, "pkg/sub/.gitkeep": "" });
    writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ output: { maxChars: 1234 }, permissions: { allow: ["grep"] } }));
    const { config, layers } = await loadConfig(resolveWorkspace(ws.path("pkg/sub"), ws.env));
    expect(config.permissions).toEqual({ allow: ["grep"], deny: ["bash"] });
    expect(config.output?.maxChars).toBe(1234);
    expect(layers.map((l) => l.source)).toEqual(["user", "project"]);
  });

  it("reads YAML and .keelrc.json, nearest first, never above the workspace root", async () => {
    ws = makeWorkspace({ "keel.config.yaml": "permissions:\n  ask: [grep]\n", "inner/.keelrc.json": { permissions: { deny: ["glob"] } } });
    expect((await loadConfig(resolveWorkspace(ws.root, ws.env))).config.permissions).toEqual({ ask: ["grep"] });
    expect((await loadConfig(resolveWorkspace(ws.path("inner"), ws.env))).config.permissions).toEqual({ deny: ["glob"] });
    // a config file above the workspace root is not read
    writeFileSync(join(ws.root, "..", "keel.config.json"), JSON.stringify({ permissions: { deny: ["read_file"] } }));
    const nested = join(ws.root, "nested-ws");
    mkdirSync(join(nested, ".keel"), { recursive: true });
    expect((await loadConfig(resolveWorkspace(nested, ws.env))).config.permissions).toBeUndefined();
  });

  it("throws a ManifestError naming the file and the field for an invalid permission rule", async () => {
    ws = makeWorkspace({ "keel.config.json": { permissions: { deny: ["bash", "has space(x)"] } } });
    const error = await loadConfig(resolveWorkspace(ws.root, ws.env)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManifestError);
    expect((error as ManifestError).file).toBe(ws.path("keel.config.json"));
    expect((error as ManifestError).field).toBe("permissions.deny.1");
    expect((error as ManifestError).exitCode).toBe(2);
    expect((error as Error).message).toContain("bash(git status*)");
  });

  it("names the innermost field of a union value (model: string or object)", async () => {
    ws = makeWorkspace({ "keel.config.json": { model: { name: 5 } } });
    const error = (await loadConfig(resolveWorkspace(ws.root, ws.env)).catch((e: unknown) => e)) as ManifestError;
    expect(error).toBeInstanceOf(ManifestError);
    expect(error.field).toBe("model.name");
    expect(error.message).toMatch(/model\.name.*expected string/);
  });

  it("names the file of an invalid agent value, as of any known key, whatever the command (a string maxSteps or budget is no limit)", async () => {
    ws = makeWorkspace({ "keel.config.json": { agent: { budgets: { maxTokens: "1e9" } } } });
    const error = (await loadConfig(resolveWorkspace(ws.root, ws.env)).catch((e: unknown) => e)) as ManifestError;
    expect(error).toBeInstanceOf(ManifestError);
    expect(error.file).toBe(ws.path("keel.config.json"));
    expect(error.field).toBe("agent.budgets.maxTokens");
    expect(error.exitCode).toBe(2);
    ws.write("keel.config.json", { agent: { maxSteps: "1000" } });
    expect(((await loadConfig(resolveWorkspace(ws.root, ws.env)).catch((e: unknown) => e)) as ManifestError).field).toBe("agent.maxSteps");
  });

  it("fails closed on an unparseable keel config file, naming it, so its deny rules cannot silently vanish", async () => {
    ws = makeWorkspace({ "keel.config.json": '{"permissions":{"deny":["bash"]},}' });
    const error = await loadConfig(resolveWorkspace(ws.root, ws.env)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManifestError);
    expect((error as ManifestError).file).toBe(ws.path("keel.config.json"));
    expect((error as ManifestError).exitCode).toBe(2);
    ws.write("keel.config.json", "{}");
    ws.write(".keel/config.local.json", "{ nope");
    const local = await loadConfig(resolveWorkspace(ws.root, ws.env)).catch((e: unknown) => e);
    expect((local as ManifestError).file).toBe(ws.path(".keel/config.local.json"));
    expect(ws.read(".keel/config.local.json")).toBe("{ nope");
  });

  it("skips another tool's unparseable settings file with a diagnostic instead of failing", async () => {
    ws = makeWorkspace({ ".claude/settings.json": "{ not json" });
    const host = await Host.create({ cwd: ws.root, env: ws.env });
    expect(host.diagnostics.items).toHaveLength(1);
    expect(host.diagnostics.items[0]).toMatchObject({ source: "config", file: ws.path(".claude/settings.json") });
    await host.close();
  });
});
