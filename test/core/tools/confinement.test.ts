import { afterEach, describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import type { Host } from "../../../core/host.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";

describe("path confinement boundary", () => {
  let ws: TempWorkspace | undefined;
  let host: Host | undefined;
  afterEach(async () => {
    await host?.close();
    ws?.cleanup();
    host = ws = undefined;
  });

  it("resolves relative paths from a subdirectory but confines them to the workspace root", async () => {
    ws = makeWorkspace({ "top.txt": "top\n", "pkg/inner.txt": "inner\n" });
    host = await openTestHost(ws, { cwd: ws.path("pkg") });
    const inner = await host.runTool({ tool: "read_file", input: { path: "inner.txt" } });
    expect(inner.content).toBe("inner\n");
    const top = await host.runTool({ tool: "read_file", input: { path: "../top.txt" } });
    expect(top.ok).toBe(true);
    expect(top.content).toBe("top\n");
    const outside = await host.runTool({ tool: "read_file", input: { path: "../../keel-home/x" } });
    expect(outside.code).toBe("permission_denied");
    // refused as written, before anything on the way is resolved (and said so: the path leaves the workspace)
    expect(outside).toMatchObject({ metadata: { reason: "escapes_workspace" }, content: expect.stringContaining("is outside the workspace") });
    const absolute = await host.runTool({ tool: "read_file", input: { path: ws.path("..", "keel-home", "x") } });
    expect(absolute).toMatchObject({ code: "permission_denied", metadata: { reason: "absolute_outside" } });
  });

  it("confines a call running inside a managed worktree to that worktree", async () => {
    ws = makeWorkspace({ "main.txt": "main checkout\n" });
    const tree = ws.path(".keel", "worktrees", "exp");
    mkdirSync(tree, { recursive: true });
    writeFileSync(`${tree}/w.txt`, "worktree\n");
    host = await openTestHost(ws);
    expect(host.confinementRoot(tree)).toBe(tree);
    const own = await host.runTool({ tool: "read_file", input: { path: "w.txt" } }, { cwd: tree });
    expect(own.content).toBe("worktree\n");
    const escape = await host.runTool({ tool: "read_file", input: { path: "../../../main.txt" } }, { cwd: tree });
    expect(escape.ok).toBe(false);
    expect(escape.code).toBe("permission_denied");
  });

  it("matches path permission rules relative to the workspace root, whatever the cwd", async () => {
    ws = makeWorkspace({ "keel.config.json": { permissions: { deny: ["write_file(src/**)"] } }, "src/a.txt": "a", "src/sub/.keep": "" });
    host = await openTestHost(ws, { cwd: ws.path("src", "sub"), yes: true });
    const denied = await host.runTool({ tool: "write_file", input: { path: "../b.txt", content: "x" } });
    expect(denied.code).toBe("permission_denied");
    const allowed = await host.runTool({ tool: "write_file", input: { path: "../../other.txt", content: "x" } });
    expect(allowed.ok).toBe(true);
  });
});

describe("symlinks on write paths", () => {
  it("refuses to write through a dangling symlink whose target is outside, and allows one pointing inside", async () => {
    const { symlinkSync, existsSync, readFileSync } = await import("node:fs");
    const ws = makeWorkspace({ "keep.txt": "k" });
    const host = await openTestHost(ws, { yes: true });
    try {
      // (outside the workspace and not in $KEEL_HOME, whose own deny rule would refuse the write before confinement is reached)
      const outside = ws.path("..", "escaped.txt");
      symlinkSync(outside, ws.path("d"));
      const denied = await host.runTool({ tool: "write_file", input: { path: "d", content: "ESCAPED" } });
      expect(denied.code).toBe("permission_denied");
      // named as the link it is, where it leads
      expect(denied).toMatchObject({ metadata: { reason: "symlink_escape" }, content: expect.stringContaining(`is a symlink to ${outside}`) });
      expect(existsSync(outside)).toBe(false);
      symlinkSync(ws.path("..", "nodir"), ws.path("dirlink"));
      const viaDir = await host.runTool({ tool: "write_file", input: { path: "dirlink/x.txt", content: "x" } });
      expect(viaDir.code).toBe("permission_denied");
      symlinkSync(ws.path("new-inside.txt"), ws.path("ok-link"));
      const allowed = await host.runTool({ tool: "write_file", input: { path: "ok-link", content: "fine" } });
      expect(allowed.ok).toBe(true);
      expect(readFileSync(ws.path("new-inside.txt"), "utf8")).toBe("fine");
    } finally {
      await host.close();
      ws.cleanup();
    }
  });
});
