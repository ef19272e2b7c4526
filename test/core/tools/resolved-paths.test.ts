import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { PermissionPolicy } from "../../../core/permissions.js";
import { readFileTool } from "../../../core/tools/read-file.js";
import { writeFileTool } from "../../../core/tools/write-file.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";
import * as unbash from "unbash";

/** A policy with the shell parser loaded (the pipeline loads it with `await policy.ready()`). */
function policy(...args: ConstructorParameters<typeof PermissionPolicy>): PermissionPolicy {
  const p = new PermissionPolicy(...args);
  p.useShellParser(unbash);
  return p;
}

let ws: TempWorkspace | undefined;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

/** A workspace with a symlink to `/` and a folder outside holding a secret, linked as `outlink`. */
function linkedWorkspace(files: Record<string, string | object> = {}): TempWorkspace {
  const w = makeWorkspace({ "a.txt": "root is fine here\n", ...files });
  const outside = join(w.root, "..", "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "root:OUTSIDE-SECRET\n");
  symlinkSync("/", w.path("rootlink"));
  symlinkSync(outside, w.path("outlink"));
  return w;
}

describe("glob and grep check every match's real path (real CLI)", () => {
  it("a pattern whose literal folder is a symlink leading outside is refused before anything is walked, and reads nothing outside", async () => {
    ws = linkedWorkspace();
    const glob = await runKeel(["--json", "call", "glob", "--input", JSON.stringify({ pattern: "rootlink/etc/passwd" })], { cwd: ws.root, env: ws.env });
    expect(glob.exitCode).toBe(1);
    expect(glob.json()).toMatchObject({
      ok: false,
      code: "permission_denied",
      content: expect.stringMatching(/^"rootlink\/etc" of pattern .* leads outside the workspace/),
    });
    const grep = await runKeel(["--json", "call", "grep", "--input", JSON.stringify({ pattern: "root", glob: "rootlink/etc/passwd" })], {
      cwd: ws.root,
      env: ws.env,
    });
    expect(grep.json()).toMatchObject({ ok: false, code: "permission_denied" });
    expect(grep.stdout).not.toContain("/bin/");
    // `rootlink/**` would have walked the whole file system (every match dropped afterwards): refused at once.
    const everything = await runKeel(["--json", "call", "glob", "--input", JSON.stringify({ pattern: "rootlink/**" })], { cwd: ws.root, env: ws.env });
    expect(everything.json()).toMatchObject({ ok: false, code: "permission_denied" });
    const viaFolder = await runKeel(["--json", "call", "grep", "--input", JSON.stringify({ pattern: "root", glob: "outlink/*.txt" })], {
      cwd: ws.root,
      env: ws.env,
    });
    expect(viaFolder.stdout).not.toContain("OUTSIDE-SECRET");
    expect(viaFolder.json()).toMatchObject({ ok: false, code: "permission_denied" });
    // A link that stays inside the workspace is searched as the folder it leads to.
    mkdirSync(ws.path("lib"));
    writeFileSync(ws.path("lib", "b.txt"), "inside\n");
    symlinkSync(ws.path("lib"), ws.path("inlink"));
    const inside = await runKeel(["--json", "call", "glob", "--input", JSON.stringify({ pattern: "inlink/*.txt" })], { cwd: ws.root, env: ws.env });
    expect(inside.json()).toMatchObject({ ok: true, data: { paths: ["inlink/b.txt"] } });
    const all = await runKeel(["--json", "call", "grep", "--input", JSON.stringify({ pattern: "root" })], { cwd: ws.root, env: ws.env });
    expect(all.json().data.matches).toEqual([{ file: "a.txt", line: 1, text: "root is fine here" }]);
    const namedFolder = await runKeel(["--json", "call", "grep", "--input", JSON.stringify({ pattern: "root", path: "outlink" })], {
      cwd: ws.root,
      env: ws.env,
    });
    expect(namedFolder.json()).toMatchObject({ ok: false, code: "permission_denied" });
    expect(namedFolder.exitCode).toBe(1);
  });
});

describe("a deny rule on a file covers grep and glob reaching it", () => {
  it("walks skip and count denied files; a named denied file is refused; the rule matches after resolution", async () => {
    ws = makeWorkspace({
      "keel.config.json": { permissions: { deny: ["read_file(.env)", "grep(secrets/**)"] } },
      ".env": "TOKEN=SECRET-ENV\n",
      "secrets/key.txt": "TOKEN=SECRET-KEY\n",
      "src/app.ts": "const TOKEN = process.env.TOKEN;\n",
    });
    symlinkSync("../.env", ws.path("src", "settings"));
    host = await openTestHost(ws, { yes: true });
    const grep = await host.runTool({ tool: "grep", input: { pattern: "TOKEN" } });
    expect(grep.ok).toBe(true);
    expect(grep.content).not.toContain("SECRET");
    expect(grep.data).toMatchObject({ matches: [{ file: "src/app.ts", line: 1 }], skippedDenied: 2 });
    expect(grep.content).toContain('denied by "read_file(.env)", "grep(secrets/**)"');
    const glob = await host.runTool({ tool: "glob", input: { pattern: "**/*" } });
    expect((glob.data as { paths: string[] }).paths).toEqual(["keel.config.json", "src/app.ts"]);
    expect(glob.data).toMatchObject({ skippedDenied: 2 });
    // Named directly: refused, also through a symlink that resolves to the denied file.
    expect(await host.runTool({ tool: "grep", input: { pattern: "TOKEN", path: ".env" } })).toMatchObject({ ok: false, code: "permission_denied" });
    const viaLink = await host.runTool({ tool: "read_file", input: { path: "src/settings" } });
    expect(viaLink).toMatchObject({ ok: false, code: "permission_denied", phase: "permission" });
    expect(viaLink.content).toContain("read_file(.env)");
    expect(await host.runTool({ tool: "grep", input: { pattern: "TOKEN", path: "src/settings" } })).toMatchObject({ ok: false, code: "permission_denied" });
  });
});

describe("permission path rules are evaluated on the resolved path", () => {
  it("a symlink does not make a path match an allow rule it does not really lie under; deny rules hold both ways", () => {
    ws = makeWorkspace({ "src/real.ts": "", "dist/out.js": "", ".env": "X=1\n" });
    symlinkSync("../dist", ws.path("src", "out"));
    symlinkSync("../.env", ws.path("src", "settings"));
    const write = writeFileTool();
    const read = readFileTool();
    const root = ws.root;
    const allow = policy({ allow: ["write_file(src/**)"] });
    expect(allow.decide("write_file", write, { path: "src/real.ts" }, root, root).action).toBe("allow");
    expect(allow.decide("write_file", write, { path: "src/new/file.ts" }, root, root).action).toBe("allow");
    expect(allow.decide("write_file", write, { path: "src/out/out.js" }, root, root).action).toBe("ask");
    expect(allow.decide("write_file", write, { path: "src/out/new.js" }, root, root).action).toBe("ask");
    const deny = policy({ deny: ["read_file(.env)", "read_file(src/settings)"] });
    expect(deny.decide("read_file", read, { path: "src/settings" }, root, root)).toMatchObject({ action: "deny", rule: "read_file(.env)" });
    expect(deny.decide("read_file", read, { path: ".env" }, root, root)).toMatchObject({ action: "deny", rule: "read_file(.env)" });
    expect(deny.decide("read_file", read, { path: "src/real.ts" }, root, root).action).toBe("allow");
    const byLinkName = policy({ deny: ["read_file(src/settings)"] });
    expect(byLinkName.decide("read_file", read, { path: "src/settings" }, root, root).action).toBe("deny");
    expect(byLinkName.deniesPath(["read_file"], "src/settings")).toBe("read_file(src/settings)");
    expect(byLinkName.deniesPath(["glob"], "src/settings")).toBeUndefined();
  });
});
