import { chmodSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Claude Code's `.claude/settings*.json` are read in every folder from the workspace root down to
// the working directory (Claude Code reads only the folder it starts in): a monorepo package's deny
// rules, hooks and settings apply when keel starts in the package, never above it.

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const API = "packages/api";
const keelIn = (dir: string, ...args: string[]) => runKeel(["--json", ...args], { cwd: ws!.path(dir), env: ws!.env });
const readIn = async (dir: string, path: string) => (await keelIn(dir, "call", "read_file", "--input", JSON.stringify({ path }))).json();
const diagnosticsIn = async (dir: string) => (await keelIn(dir, "tools")).json().diagnostics as { file?: string; path?: string; message: string }[];
const preRead = (command: string) => ({ PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command }] }] });

function monorepo(files: Record<string, string | object> = {}): TempWorkspace {
  return makeWorkspace(
    {
      "a.txt": "root a\n",
      "b.txt": "root b\n",
      [`${API}/a.txt`]: "api a\n",
      [`${API}/b.txt`]: "api b\n",
      [`${API}/c.txt`]: "api c\n",
      ...files,
    },
    { git: true, under: "/var/tmp" },
  );
}

describe("nested .claude/settings*.json", () => {
  it("a package's deny rule applies when keel starts in the package (not from the root); the root's and the package's accumulate", async () => {
    ws = monorepo({
      ".claude/settings.json": { permissions: { deny: ["Read(a.txt)"] } },
      [`${API}/.claude/settings.json`]: { permissions: { deny: ["Read(/b.txt)"] } },
    });
    // In the package: the root's rule (any depth) and the package's own (anchored at the package) both deny.
    expect(await readIn(API, "a.txt")).toMatchObject({ ok: false, code: "permission_denied" });
    expect(await readIn(API, "b.txt")).toMatchObject({ ok: false, code: "permission_denied" });
    expect(await readIn(API, "c.txt")).toMatchObject({ ok: true });
    expect(await readIn(API, "../../b.txt")).toMatchObject({ ok: true });
    // From the root the package's file is not read: its rule does not apply.
    expect(await readIn(".", `${API}/b.txt`)).toMatchObject({ ok: true });
    expect(await readIn(".", `${API}/a.txt`)).toMatchObject({ ok: false, code: "permission_denied" });

    const listed = (await keelIn(API, "config", "list")).json();
    const deny = listed.data.entries.find((e: { key: string }) => e.key === "permissions.deny");
    expect(deny).toMatchObject({ source: "claude", file: ws.path(API, ".claude/settings.json") });
    expect(deny.value).toEqual(expect.arrayContaining(["read_file(**/a.txt/**)", `read_file(${API}/b.txt/**)`]));
    expect(listed.data.layers).toEqual([
      { source: "claude", file: ws.path(".claude/settings.json") },
      { source: "claude", file: ws.path(API, ".claude/settings.json") },
    ]);
    expect(listed.content).toContain(`claude: ${API}/.claude/settings.json`);
    // The Claude files as written: both files' rules (they accumulate), not only the nearer file's list.
    const claude = (await keelIn(API, "config", "list", "--source", "claude")).json().data.entries as { key: string; value: unknown }[];
    expect(claude.find((e) => e.key === "permissions.deny")?.value).toEqual(["Read(a.txt)", "Read(/b.txt)"]);
  });

  it("the package's settings.local.json overrides its settings.json, which overrides the root's", async () => {
    ws = monorepo({
      ".claude/settings.json": { theme: "root", statusLine: "root", spinner: "root" },
      [`${API}/.claude/settings.json`]: { theme: "api", statusLine: "api" },
      [`${API}/.claude/settings.local.json`]: { statusLine: "api-local" },
    });
    const entries = (await keelIn(API, "config", "list", "--source", "claude")).json().data.entries as { key: string; value: unknown; file: string }[];
    expect(entries.map((e) => [e.key, e.value, e.file])).toEqual([
      ["spinner", "root", ws.path(".claude/settings.json")],
      ["statusLine", "api-local", ws.path(API, ".claude/settings.local.json")],
      ["theme", "api", ws.path(API, ".claude/settings.json")],
    ]);
    const get = (await keelIn(API, "config", "get", "theme", "--source", "claude")).json();
    expect(get.data).toMatchObject({ value: "api", file: ws.path(API, ".claude/settings.json") });
  });

  it("an untrusted package's allow rules and hooks are dropped with a diagnostic naming the package's file", async () => {
    ws = monorepo({ [`${API}/.claude/settings.json`]: { permissions: { allow: ["Bash(ls:*)"] }, hooks: preRead("touch ran.txt") } });
    const file = ws.path(API, ".claude/settings.json");
    const diagnostics = await diagnosticsIn(API);
    expect(diagnostics).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file, path: "permissions.allow", message: expect.stringMatching(/not trusted.*permissions\.allow \(1 rule\) ignored/) }),
        expect.objectContaining({ file, message: expect.stringMatching(/1 Claude Code hook in this file does not run: this workspace is not trusted/) }),
      ]),
    );
    expect(await readIn(API, "a.txt")).toMatchObject({ ok: true });
    expect(ws.exists(`${API}/ran.txt`)).toBe(false);
    const hooks = (await keelIn(API, "hooks")).json().hooks;
    expect(hooks).toEqual([expect.objectContaining({ command: "touch ran.txt", runs: false, file })]);
  });

  it("a package's hook, trusted from the package, runs in the package with its script pinned from there", async () => {
    ws = monorepo({
      [`${API}/.claude/settings.json`]: {
        hooks: {
          PreToolUse: [
            {
              matcher: "Read",
              hooks: [
                { type: "command", command: "./scripts/guard.sh" },
                { type: "command", command: '"$CLAUDE_PROJECT_DIR"/scripts/project.sh' },
              ],
            },
          ],
        },
      },
      [`${API}/scripts/guard.sh`]: '#!/bin/bash\npwd > guard-ran-in.txt\ncase "$(cat)" in *b.txt*) echo "b.txt stays closed" >&2; exit 2;; esac\n',
      // Claude Code's advice for a hook's script: as Claude Code started in the package, CLAUDE_PROJECT_DIR is the package.
      [`${API}/scripts/project.sh`]: '#!/bin/bash\necho "$CLAUDE_PROJECT_DIR" > "$CLAUDE_PROJECT_DIR/project-dir.txt"\n',
    });
    chmodSync(ws.path(API, "scripts/guard.sh"), 0o755);
    chmodSync(ws.path(API, "scripts/project.sh"), 0o755);
    const trusted = await keelIn(API, "trust");
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    expect(trusted.json().approved).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "hook", name: expect.stringContaining(`(${API}/.claude/settings.json)`), files: [`${API}/scripts/guard.sh`] }),
        expect.objectContaining({ kind: "hook", files: [`${API}/scripts/project.sh`] }),
      ]),
    );
    expect(await readIn(API, "a.txt")).toMatchObject({ ok: true });
    expect(ws.read(`${API}/guard-ran-in.txt`).trim()).toBe(ws.path(API));
    expect(ws.read(`${API}/project-dir.txt`).trim()).toBe(ws.path(API));
    expect(await readIn(API, "b.txt")).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked" });
    expect((await keelIn(API, "hooks")).json().hooks).toEqual([
      expect.objectContaining({ runs: true, cwd: ws.path(API) }),
      expect.objectContaining({ runs: true, cwd: ws.path(API) }),
    ]);

    // The pinned script changed: the hook waits for a new review.
    writeFileSync(ws.path(API, "scripts/guard.sh"), "#!/bin/bash\ntouch changed-ran\n");
    expect((await diagnosticsIn(API)).map((d) => d.message).join("\n")).toMatch(
      /hook PreToolUse `\.\/scripts\/guard\.sh` \(packages\/api\/\.claude\/settings\.json\) was added or changed since/,
    );
    expect(await readIn(API, "b.txt")).toMatchObject({ ok: true });
    expect(ws.exists(`${API}/changed-ran`)).toBe(false);
  });

  it("a package's settings file that is a link leading outside the workspace is refused, unread", async () => {
    ws = monorepo({ [`${API}/.claude/keep`]: "" });
    const outside = join(ws.keelHome, "..", "outside.json");
    writeFileSync(outside, JSON.stringify({ permissions: { deny: ["Read(c.txt)"] }, secret: "s3cret-value" }));
    const file = ws.path(API, ".claude/settings.json");
    symlinkSync(outside, file);
    const listed = await keelIn(API, "config", "list");
    expect(listed.exitCode, listed.stderr).toBe(0);
    const layer = listed.json().data.layers.find((l: { file: string }) => l.file === file);
    expect(layer?.error).toMatch(/leads outside the workspace .*it was not read\. Replace the link with a copy of the file\./);
    expect(listed.stdout).not.toContain("s3cret-value");
    expect((await keelIn(API, "doctor")).stdout).toContain(`${API}/.claude/settings.json cannot be parsed`);
  });
});

describe("Claude settings inside a managed worktree", () => {
  it("the walk up from a managed worktree skips keel's own .keel/ and .keel/worktrees/ (keel's state is never an input), and reads the worktree's own .claude/", async () => {
    ws = monorepo({ ".claude/settings.json": { theme: "root" } });
    expect((await keelIn(".", "worktree", "enter", "x")).exitCode).toBe(0);
    ws.write(".keel/.claude/settings.json", JSON.stringify({ permissions: { deny: ["Read(c.txt)"] } }));
    ws.write(".keel/worktrees/.claude/settings.json", JSON.stringify({ permissions: { deny: ["Read(c.txt)"] } }));
    ws.write(".keel/worktrees/x/.claude/settings.local.json", JSON.stringify({ theme: "worktree" }));
    const listed = (await keelIn(".keel/worktrees/x", "config", "list")).json();
    const files = (listed.data.layers as { file: string }[]).map((l) => l.file);
    expect(files).toContain(ws.path(".keel/worktrees/x/.claude/settings.local.json"));
    expect(files.filter((f) => f.includes(".keel/.claude") || f.includes(".keel/worktrees/.claude"))).toEqual([]);
    expect(await readIn(".keel/worktrees/x", `${API}/c.txt`)).toMatchObject({ ok: true });
  });

  it("in a managed worktree, the worktree's own .claude/ rules are relative to the worktree (as every path rule there is), not to .keel/worktrees/<name>", async () => {
    ws = monorepo();
    expect((await keelIn(".", "worktree", "enter", "x")).exitCode).toBe(0);
    // The branch's settings (the worktree's copy): anchored rules name the worktree's files, at its root and in a package.
    ws.write(".keel/worktrees/x/.claude/settings.json", { permissions: { deny: ["Read(/b.txt)"] } });
    ws.write(`.keel/worktrees/x/${API}/.claude/settings.json`, { permissions: { deny: ["Read(./c.txt)"] } });
    expect(await readIn(".keel/worktrees/x", "b.txt")).toMatchObject({ ok: false, code: "permission_denied" });
    expect(await readIn(".keel/worktrees/x", "a.txt")).toMatchObject({ ok: true });
    expect(await readIn(`.keel/worktrees/x/${API}`, "c.txt")).toMatchObject({ ok: false, code: "permission_denied" });
    expect(await readIn(`.keel/worktrees/x/${API}`, "a.txt")).toMatchObject({ ok: true });
  });

  it("a package folder whose name holds parentheses (`app (copy)`) scopes its rules to itself, not to every file", async () => {
    const app = "packages/app (copy)";
    ws = monorepo({ [`${app}/a.txt`]: "a\n", [`${app}/b.txt`]: "b\n", [`${app}/.claude/settings.json`]: { permissions: { deny: ["Read(/b.txt)"] } } });
    expect(await readIn(app, "b.txt")).toMatchObject({ ok: false, code: "permission_denied" });
    expect(await readIn(app, "a.txt")).toMatchObject({ ok: true });
    expect(await readIn(app, "../../a.txt")).toMatchObject({ ok: true });
  });
});
