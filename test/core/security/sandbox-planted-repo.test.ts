import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap).

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const keelIn = (w: TempWorkspace, cwd: string, ...args: string[]) => runKeel(args, { cwd, env: w.env });
const bash = (w: TempWorkspace, cwd: string, command: string) => keelIn(w, cwd, "--yes", "--json", "call", "bash", "--input", JSON.stringify({ command }));

describe("a sandboxed command cannot plant a repository for keel's own git calls (real CLI, bwrap)", () => {
  it("a workspace without its own .git (a subfolder of the repository) gets a read-only placeholder", async () => {
    ws = makeWorkspace({ "pkg/a.txt": "a\n" }, { git: true });
    ws.writeUserConfig({ sandbox: "workspace-write" });
    mkdirSync(ws.path("pkg", ".keel"));
    const pkg = ws.path("pkg");
    const marker = join(ws.keelHome, "PWNED");
    // git init here would make pkg its own repository, whose post-checkout hook `git worktree add` runs outside the sandbox.
    const hook = `#!/bin/sh\\necho hook > ${marker}\\n`;
    const plant = await bash(
      ws,
      pkg,
      `git init -q && git -c user.name=x -c user.email=x@x commit -q --allow-empty -m x && printf '${hook}' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout && echo planted`,
    );
    expect(plant.json()).toMatchObject({ ok: false, metadata: { sandbox: "workspace-write" } });
    expect(plant.json().data.stdout).not.toContain("planted");
    expect(plant.json().data.stderr).toMatch(/Read-only file system/);

    const entered = await keelIn(ws, pkg, "--json", "worktree", "enter", "sx");
    expect(entered.exitCode, entered.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const wt = ws.path("pkg", ".keel", "worktrees", "sx");
    expect(entered.json().path).toBe(wt);
    // The placeholder changes nothing else: keel still works in the workspace's subfolder of the worktree.
    const pwd = await bash(ws, pkg, "pwd && echo x > p.txt");
    expect(pwd.json().data.stdout.trim()).toBe(join(wt, "pkg"));
    const merged = await keelIn(ws, pkg, "--json", "worktree", "exit", "--action", "merge");
    expect(merged.exitCode, merged.stdout + merged.stderr).toBe(0);
    expect(merged.json().changedFiles).toEqual(["pkg/p.txt"]);
    expect(existsSync(marker)).toBe(false);
  });
});
