import { existsSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { bwrapArgs } from "../../../core/sandbox/bwrap.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap).

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh real folder under /var/tmp (the sandbox's /tmp is private). */
function folder(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join("/var/tmp", prefix)));
  made.push(dir);
  return dir;
}

const settings = { mode: "workspace-write", network: true, denyRead: [], credentials: "hidden", workspaceCommands: true, unixSockets: true } as const;

describe("pinned folders swapped for a link between keel and bwrap (real bwrap)", () => {
  // keel resolves the folders it pins (pinnedParents) before bwrap binds each over itself by path. A process
  // outside this sandbox (a sandboxed server started before the folder needed pinning) could swap one for a
  // link meanwhile. bwrap resolves the source through the link but never mounts onto a link: it fails, and
  // nothing runs — the link's target is never bound writable. This pins that behaviour of the bwrap keel runs.
  it("bwrap refuses to mount onto the link: nothing runs and nothing is written outside", async () => {
    const root = folder("keel-mc-root-");
    const outside = folder("keel-mc-home-");
    mkdirSync(join(root, "sub/deeper/keelhome"), { recursive: true });
    const args = bwrapArgs(settings, {
      root,
      cwd: root,
      argv: ["sh", "-c", `echo pwned > ${outside}/planted; echo ran`],
      readOnly: [join(root, "sub/deeper/keelhome")],
    });
    // What a sandboxed server started earlier (its own sandbox never pinned sub) does between keel and bwrap.
    renameSync(join(root, "sub"), join(root, "sub-real"));
    mkdirSync(join(outside, "deeper/keelhome"), { recursive: true });
    symlinkSync(outside, join(root, "sub"));
    const r = await execa("bwrap", args, { reject: false, stdin: "ignore" });
    expect(r.stdout).not.toContain("ran");
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/bwrap: Can't bind mount .* on .*\/sub\b/);
    expect(existsSync(join(outside, "planted"))).toBe(false);
  });

  it("without a swap the command runs and can write the workspace, the pinned folders included", async () => {
    const root = folder("keel-mc root ");
    mkdirSync(join(root, "sub/deeper/keelhome"), { recursive: true });
    const args = bwrapArgs(settings, {
      root,
      cwd: root,
      argv: ["sh", "-c", "echo a > sub/a && echo b > sub/deeper/b && echo ran"],
      readOnly: [join(root, "sub/deeper/keelhome")],
    });
    const r = await execa("bwrap", args, { reject: false, stdin: "ignore" });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("ran");
    expect(existsSync(join(root, "sub/deeper/b"))).toBe(true);
  });
});
