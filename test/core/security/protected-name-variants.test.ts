import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { nameKey, pathKey } from "../../../core/name-key.js";
import { PermissionPolicy } from "../../../core/permissions.js";
import { writeFileTool } from "../../../core/tools/write-file.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
let base: string | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
  if (base) rmSync(base, { recursive: true, force: true });
  base = undefined;
});

// On a volume that folds names (macOS, WSL's /mnt/c, ext4 casefold folders, HFS+, NTFS) each of these
// names `.git` or `.keel` itself; this machine's volume does not fold, so the test checks the refusal.
const VARIANTS = [
  ".GIT/hooks/pre-commit",
  ".Git/config",
  ".git./hooks/pre-commit",
  ".git /hooks/pre-commit",
  ".g\u200cit/hooks/pre-commit",
  ".git::$INDEX_ALLOCATION/hooks/pre-commit",
  "GIT~1/hooks/pre-commit",
  "sub/.GIT/config",
  ".KEEL/config.local.json",
  ".\u212Aeel/config.local.json",
  ".keel../state/plan.json",
];

describe("writes into .git/ and .keel/ are refused under every name a folding volume gives them (real CLI)", () => {
  it("refuses case, trailing-dot and -space, invisible-character, NTFS stream and short-name variants, even with --yes", async () => {
    ws = makeWorkspace({ "README.md": "hi\n" }, { git: true });
    for (const path of VARIANTS) {
      const run = await runKeel(["--yes", "--json", "call", "write_file", "--input", JSON.stringify({ path, content: "#!/bin/sh\necho pwned\n" })], {
        cwd: ws.root,
        env: ws.env,
      });
      expect(run.json(), path).toMatchObject({ ok: false, code: "permission_denied", phase: "permission" });
      expect(run.json().content, path).toMatch(/inside \.(git|keel)\/, which keel protects/);
      expect(existsSync(ws.path(path)), path).toBe(false);
    }
    // Names that only look alike on screen, and folders whose names merely contain .git, stay writable.
    for (const path of ["docs/.gitignore", "a.git/x", "git/x", ".github/workflows/ci.yml"]) {
      const run = await runKeel(["--yes", "--json", "call", "write_file", "--input", JSON.stringify({ path, content: "x\n" })], { cwd: ws.root, env: ws.env });
      expect(run.json(), path).toMatchObject({ ok: true });
    }
  });

  it("asks for case and trailing-dot variants of control files, whatever allow rules say", () => {
    ws = makeWorkspace({});
    const p = new PermissionPolicy({ allow: ["write_file"] });
    const write = writeFileTool();
    for (const path of [".MCP.json", "Keel.Config.JSON", ".mcp.json.", ".Claude/Settings.json", ".claude/skills/x/skill.md", "plugins/x/Plugin.json"]) {
      const decision = p.decide("write_file", write, { path, content: "{}" }, ws.root);
      expect(decision, path).toMatchObject({ action: "ask", control: true });
    }
    expect(p.decide("write_file", write, { path: "notes.json", content: "{}" }, ws.root)).toMatchObject({ action: "allow" });
  });

  it("hides credential stores under their case variants too (read_file .SSH/id_rsa in a home-folder workspace)", async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), "keel-name-variants-")));
    const home = join(base, "home");
    for (const [rel, text] of Object.entries({ ".ssh/id_rsa": "SSH-KEY-SECRET\n", ".aws/credentials": "AWS-KEY-SECRET\n" })) {
      mkdirSync(dirname(join(home, rel)), { recursive: true });
      writeFileSync(join(home, rel), text);
    }
    mkdirSync(join(home, ".git"));
    // The variant is a real folder here (this volume does not fold); on macOS it would be .ssh itself.
    mkdirSync(join(home, ".SSH"));
    writeFileSync(join(home, ".SSH", "id_rsa"), "SSH-KEY-SECRET\n");
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, CI: "true" };
    delete env.KEEL_HOME;
    delete env.KEEL_TRUST;
    const read = await runKeel(["--json", "--yes", "call", "read_file", "--input", '{"path": ".SSH/id_rsa"}'], { cwd: home, env });
    expect(read.json()).toMatchObject({ ok: false, code: "permission_denied" });
    expect(read.stdout).not.toContain("SSH-KEY-SECRET");
  });

  it("a deny rule also holds for a file's case and trailing-dot variants: read_file, glob and grep (real CLI)", async () => {
    ws = makeWorkspace({ ".ENV": "API_KEY=ENV-SECRET-1\n", "app/Secrets.JSON.": "ENV-SECRET-2\n", "app/main.ts": "ok\n" });
    ws.writeUserConfig({ permissions: { deny: ["read_file(**/.env)", "read_file(**/secrets.json)"] } });
    const keel = (tool: string, input: object) => runKeel(["--json", "--yes", "call", tool, "--input", JSON.stringify(input)], { cwd: ws!.root, env: ws!.env });
    for (const path of [".ENV", "app/Secrets.JSON."]) {
      const read = await keel("read_file", { path });
      expect(read.json(), path).toMatchObject({ ok: false, code: "permission_denied" });
      expect(read.stdout).not.toContain("ENV-SECRET");
    }
    const glob = await keel("glob", { pattern: "**/*" });
    expect(glob.json().content).toContain("app/main.ts");
    expect(glob.json().data.skippedDenied).toBe(2);
    const grep = await keel("grep", { pattern: "SECRET" });
    expect(grep.stdout).not.toContain("ENV-SECRET");
    // An allow rule is not widened by folding: write_file(**/notes.md) does not allow NOTES.md.
    ws.writeUserConfig({ permissions: { allow: ["write_file(**/notes.md)"] } });
    expect((await keel("write_file", { path: "NOTES.md", content: "x" })).json()).toMatchObject({ ok: true });
    const asked = await runKeel(["--json", "call", "write_file", "--input", JSON.stringify({ path: "NOTES.md", content: "y" })], { cwd: ws.root, env: ws.env });
    expect(asked.json()).toMatchObject({ ok: false, code: "approval_required" });
  });

  it("a path the model sends of any length is keyed in one pass: 800 KB of '. ' before a name (the permission phase took hours)", () => {
    // `/[. ]+$/` retried from every dot and space of the run (80 KB took 40 s of CPU). No timing is asserted: at this
    // size the old code outlived the test timeout by far, the new one takes milliseconds.
    const name = ". ".repeat(400_000) + "a";
    expect(nameKey(name)).toBe(name);
    expect(nameKey(name + ". . .")).toBe(name);
    ws = makeWorkspace({});
    const p = new PermissionPolicy({ deny: ["write_file(**/.env)"] });
    const write = writeFileTool();
    expect(p.decide("write_file", write, { path: name, content: "x" }, ws.root)).toMatchObject({ action: "ask" });
    expect(p.decide("write_file", write, { path: `.git${name}./hooks/pre-commit`, content: "x" }, ws.root)).toMatchObject({ action: "ask" });
    expect(p.decide("write_file", write, { path: `.git${" .".repeat(400_000)}/hooks/pre-commit`, content: "x" }, ws.root)).toMatchObject({ action: "deny" });
  });

  it("nameKey folds what such volumes fold, and nothing that tells names apart", () => {
    expect([".GIT", ".git.", ".git  ", ".g\u200dit", "\ufeff.git", ".git::$INDEX_ALLOCATION", "．ｇｉｔ"].map(nameKey)).toEqual(Array(7).fill(".git"));
    expect([".gitignore", "a.git", ".git-x", "git"].map(nameKey)).not.toContain(".git");
    // pathKey's shortcut for paths that are their own key agrees with keying every segment.
    for (const p of ["src/a.ts", "src/A.ts", "a./b", "a/b.", ".", "x/.GIT/y", "a:b/c", "a b", "/home/u/.ssh/id_rsa", "é/x", ".git."])
      expect(pathKey(p), p).toBe(p.split("/").map(nameKey).join("/"));
  });
});
