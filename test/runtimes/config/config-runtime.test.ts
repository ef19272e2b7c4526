import { describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { parseKeyPath, formatKeyPath } from "../../../runtimes/config/key-path.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

let ws: TempWorkspace;
let host: Host;
const call = (tool: string, input: unknown) => host.runTool({ tool, input }, { yes: true });

/** The four-file example of the README (Domain runtimes > Config). */
function fourFiles(): TempWorkspace {
  const w = makeWorkspace({
    ".claw-config.json": { review: { reviewers: 2 }, theme: "dark" },
    ".claude/settings.json": { permissions: { deny: ["bash(rm *)"] }, review: { mode: "careful" } },
    "keel.config.json": { model: { name: "local-llama" }, review: { reviewers: 3 } },
  });
  writeFileSync(
    join(w.keelHome, "config.json"),
    JSON.stringify({ model: "gpt-4.1-mini", review: { mode: "lenient", reviewers: 1 }, permissions: { allow: ["read_file"] } }),
  );
  return w;
}

closeAfterEach(() => ({ host, ws }));

describe("config runtime", () => {
  it("merges the four documented files and reports each value's source", async () => {
    ws = fourFiles();
    host = await openTestHost(ws);
    const list = await call("config_list", {});
    expect(list.ok).toBe(true);
    const entries = (list.data as any).entries.map((e: any) => [e.key, e.value, e.source]);
    expect(entries).toEqual([
      ["model.name", "local-llama", "project"],
      ["permissions.allow", ["read_file"], "user"],
      ["permissions.deny", ["bash(rm *)"], "claude"],
      ["review.mode", "lenient", "user"], // Claude Code settings contribute only their permission rules
      ["review.reviewers", 3, "project"],
      ["theme", "dark", "legacy"],
    ]);
    expect(list.content).toContain('permissions.deny = ["bash(rm *)"]  (claude: .claude/settings.json)');

    const get = await call("config_get", { key_path: "review.reviewers" });
    expect(get.data).toMatchObject({ value: 3, source: "project", file: ws.path("keel.config.json") });
    const review = await call("config_get", { key_path: "review" });
    expect(review.data).toMatchObject({ value: { mode: "lenient", reviewers: 3 }, sources: ["user", "project"] });
    const fromUser = await call("config_get", { key_path: "review.reviewers", source: "user" });
    expect(fromUser.data).toMatchObject({ value: 1, source: "user" });
    const onlyLegacy = await call("config_list", { source: "legacy" });
    expect((onlyLegacy.data as any).entries.map((e: any) => e.key)).toEqual(["review.reviewers", "theme"]);
    const prefixed = await call("config_list", { prefix: "permissions", limit: 1 });
    expect(prefixed.data as any).toMatchObject({ total: 2, entries: [{ key: "permissions.allow" }] });
    // The host itself read the same merged view.
    expect(host.config.permissions?.deny).toEqual(["bash(rm *)"]);
  });

  it("config_set writes to .keel/config.local.json by default and the local value wins", async () => {
    ws = fourFiles();
    host = await openTestHost(ws);
    const set = await call("config_set", { key_path: "review.mode", value: "strict" });
    expect(set.ok).toBe(true);
    expect(JSON.parse(ws.read(".keel/config.local.json"))).toEqual({ review: { mode: "strict" } });
    expect((await call("config_get", { key_path: "review.mode" })).data).toMatchObject({ value: "strict", source: "local" });
    expect(JSON.parse(ws.read("keel.config.json"))).toEqual({ model: { name: "local-llama" }, review: { reviewers: 3 } });

    const project = await call("config_set", { key_path: "review.reviewers", value: 5, source: "project" });
    expect(project.ok).toBe(true);
    expect(JSON.parse(ws.read("keel.config.json")).review.reviewers).toBe(5);
    const user = await call("config_set", { key_path: "review.mode", value: "x", source: "user" });
    expect(user.content).toMatch(/Note: local \(.keel\/config.local.json\) sets review.mode too and wins/);
  });

  it("never overwrites an unparseable settings.local.json, and refuses to write into an unparseable target", async () => {
    ws = makeWorkspace({ ".claude/settings.json": { review: { mode: "careful" } } });
    const broken = '{ "permissions": { "allow": [ "bash(ls)", ';
    ws.write(".claude/settings.local.json", broken);
    host = await openTestHost(ws);
    const list = await call("config_list", {});
    expect((list.data as any).layers).toContainEqual(
      expect.objectContaining({ file: ws.path(".claude/settings.local.json"), error: expect.stringContaining("not valid JSON") }),
    );
    expect(list.content).toContain("Skipped (cannot be parsed, left untouched): .claude/settings.local.json");
    expect((await call("config_set", { key_path: "permissions.allow", value: ["bash(ls)"] })).ok).toBe(true);
    expect(ws.read(".claude/settings.local.json")).toBe(broken);

    const brokenLocal = '{"review": {"mode": "strict",,}}';
    ws.write(".keel/config.local.json", brokenLocal);
    const refused = await call("config_set", { key_path: "review.mode", value: "lenient" });
    expect(refused).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(refused.content).toContain(`Refusing to write ${ws.path(".keel/config.local.json")}: it cannot be parsed`);
    expect(ws.read(".keel/config.local.json")).toBe(brokenLocal);
  });

  it("refuses values that break keel's schema (wrong-type permissions) and writes nothing", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws);
    const wrong = await call("config_set", { key_path: "permissions.deny", value: "bash" });
    expect(wrong).toMatchObject({ ok: false, code: "schema_invalid" });
    expect(wrong.content).toMatch(/permissions\.deny.*expected array/);
    expect(wrong.content).toContain("Nothing was written");
    const badRule = await call("config_set", { key_path: "permissions.allow", value: ["bash (ls)"] });
    expect(badRule.ok).toBe(false);
    const badEnum = await call("config_set", { key_path: "mcp.elicitation", value: "sometimes" });
    expect(badEnum.ok).toBe(false);
    expect(ws.exists(".keel/config.local.json")).toBe(false);
    // Keys keel does not know are free-form.
    expect((await call("config_set", { key_path: "review.mode", value: { any: ["shape"] } })).ok).toBe(true);
  });

  it("never loads a JS/TS project config (configuration is data), and writes keel.config.json beside it", async () => {
    ws = makeWorkspace({
      "keel.config.mjs": "import { writeFileSync } from 'node:fs'; writeFileSync('MARKER', 'ran'); export default { review: { mode: 'js' } };\n",
    });
    host = await openTestHost(ws);
    expect((await call("config_get", { key_path: "review.mode" })).data).toMatchObject({ found: false });
    expect(ws.exists("MARKER")).toBe(false);
    expect(
      host.diagnostics.items.some((d) => d.source === "config" && d.file === ws.path("keel.config.mjs") && /never executes configuration/.test(d.message)),
    ).toBe(true);
    expect((await call("config_set", { key_path: "review.mode", value: "x", source: "project" })).ok).toBe(true);
    expect(JSON.parse(ws.read("keel.config.json"))).toEqual({ review: { mode: "x" } });
    expect(ws.read("keel.config.mjs")).toContain("export default");
  });

  it("writes into package.json#keel without touching the rest of package.json", async () => {
    ws = makeWorkspace({ "package.json": { name: "demo", version: "1.0.0", keel: { review: { mode: "pkg" } } } });
    host = await openTestHost(ws);
    expect((await call("config_set", { key_path: "review.reviewers", value: 2, source: "project" })).ok).toBe(true);
    expect(JSON.parse(ws.read("package.json"))).toEqual({ name: "demo", version: "1.0.0", keel: { review: { mode: "pkg", reviewers: 2 } } });
  });

  it("keeps the file's own formatting: tabs, key order, CRLF and what lies outside the edited section byte for byte", async () => {
    const original =
      '{\r\n\t"name": "demo",\r\n\t"scripts": { "test": "vitest" },\r\n\t"keel": {\r\n\t\t"permissions": { "allow": ["read_file", "grep"] }\r\n\t},\r\n\t"version": "1.0.0"\r\n}\r\n';
    ws = makeWorkspace({ "package.json": original });
    host = await openTestHost(ws);
    expect((await call("config_set", { key_path: "review.reviewers", value: 2, source: "project" })).ok).toBe(true);
    expect((await call("config_set", { key_path: "permissions.allow[1]", value: "glob", source: "project" })).ok).toBe(true);
    const text = ws.read("package.json");
    expect(JSON.parse(text)).toEqual({
      name: "demo",
      scripts: { test: "vitest" },
      keel: { permissions: { allow: ["read_file", "glob"] }, review: { reviewers: 2 } },
      version: "1.0.0",
    });
    // the rest of the file keeps its bytes; the edited section follows the file's tabs and CRLF
    expect(text.startsWith('{\r\n\t"name": "demo",\r\n\t"scripts": { "test": "vitest" },\r\n\t"keel": {\r\n')).toBe(true);
    expect(text.endsWith('\t"version": "1.0.0"\r\n}\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, "")).not.toContain("\n");
    expect(text).not.toMatch(/^ /m);
  });

  it("parses bracket-quoted key paths and refuses to replace a scalar with an object", async () => {
    expect(parseKeyPath('mcp["my.server"].lazy')).toEqual(["mcp", "my.server", "lazy"]);
    expect(parseKeyPath("a['x y'][0].b")).toEqual(["a", "x y", "0", "b"]);
    expect(formatKeyPath(["mcp", "my.server", "lazy"])).toBe('mcp["my.server"].lazy');
    expect(() => parseKeyPath("a..b")).toThrow(/empty key/);
    expect(() => parseKeyPath('a["b.c"')).toThrow(/unclosed/);
    ws = makeWorkspace();
    host = await openTestHost(ws);
    expect((await call("config_set", { key_path: 'servers["api.example.com"].timeout', value: 5 })).ok).toBe(true);
    expect(JSON.parse(ws.read(".keel/config.local.json"))).toEqual({ servers: { "api.example.com": { timeout: 5 } } });
    const clash = await call("config_set", { key_path: 'servers["api.example.com"].timeout.ms', value: 5 });
    expect(clash.ok).toBe(false);
    expect(clash.content).toContain('servers["api.example.com"].timeout is 5');
  });

  it("never writes config through a link planted at the project config (keel.config.json → the user's config)", async () => {
    ws = makeWorkspace();
    const { symlinkSync } = await import("node:fs");
    writeFileSync(join(ws.keelHome, "config.json"), "{}");
    symlinkSync(join(ws.keelHome, "config.json"), ws.path("keel.config.json"));
    // Linked outside the workspace: not even read (keel stops, naming the link).
    await expect(openTestHost(ws)).rejects.toThrow(/keel\.config\.json leads outside the workspace/);
    // Linked inside it: read, but a write does not follow the link.
    (await import("node:fs")).rmSync(ws.path("keel.config.json"));
    ws.write("conf/real.json", "{}");
    symlinkSync(ws.path("conf/real.json"), ws.path("keel.config.json"));
    host = await openTestHost(ws);
    const obs = await call("config_set", { key_path: "permissions.allow", value: ["bash"], source: "project" });
    expect(obs).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(obs.content).toContain("symbolic link");
    expect(JSON.parse((await import("node:fs")).readFileSync(join(ws.keelHome, "config.json"), "utf8"))).toEqual({});
    expect(ws.read("conf/real.json")).toBe("{}");
  });
});
