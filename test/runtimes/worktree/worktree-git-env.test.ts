import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
let bin: string | undefined;
afterEach(() => {
  ws?.cleanup();
  if (bin) rmSync(bin, { recursive: true, force: true });
  ws = bin = undefined;
});

describe("keel's own git runs from the environment keel was given (in-process, its own env)", () => {
  it("worktree enter, status and exit find git on the given PATH, not the test process's", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const real = ws.git("--exec-path").trim(); // a git that works, to hand the calls on to
    expect(real).not.toBe("");
    // A git outside the workspace (under /var/tmp, which sandboxed commands see) that logs each call, first on the given PATH only.
    bin = mkdtempSync("/var/tmp/keel-git-env-");
    const log = join(bin, "calls.log");
    writeFileSync(join(bin, "git"), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${join(real, "git")}' "$@"\n`);
    chmodSync(join(bin, "git"), 0o755);
    const env = { ...ws.env, PATH: `${bin}:${ws.env.PATH ?? ""}` };
    const keel = (...args: string[]) => runKeel(args, { cwd: ws!.root, env });
    const entered = await keel("--json", "worktree", "enter", "w1");
    expect(entered.exitCode, entered.stdout + entered.stderr).toBe(0);
    expect((await keel("--json", "worktree", "status")).exitCode).toBe(0);
    expect((await keel("--json", "worktree", "exit", "--action", "discard")).exitCode).toBe(0);
    const calls = readFileSync(log, "utf8").split("\n").filter(Boolean);
    expect(
      calls.some((c) => / worktree add /.test(` ${c} `)),
      calls.join("\n"),
    ).toBe(true);
    expect(
      calls.some((c) => / worktree remove /.test(` ${c} `)),
      calls.join("\n"),
    ).toBe(true);
  });
});
