import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { worktreeNameProblem } from "../../../runtimes/worktree/worktree-name.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace | undefined;
const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
  ws?.cleanup();
});
const open = async (w: TempWorkspace) => {
  const host = await openTestHost(w);
  hosts.push(host);
  return host;
};

describe("worktree service (in-process host, real git)", () => {
  it("validates names: charset, length, '..', leading dot or dash", () => {
    expect(worktreeNameProblem("preview")).toBeUndefined();
    expect(worktreeNameProblem("fix-login.v2_b")).toBeUndefined();
    expect(worktreeNameProblem("../x")).toContain("..");
    expect(worktreeNameProblem("a/b")).toContain('"/"');
    expect(worktreeNameProblem("x".repeat(65))).toContain("65 characters");
    expect(worktreeNameProblem(".hidden")).toContain("start");
    expect(worktreeNameProblem("-rf")).toContain("start");
    expect(worktreeNameProblem("x.lock")).toContain(".lock");
    expect(worktreeNameProblem("")).toContain("empty");
  });

  it("worktree_enter refuses a bad name at validation, before anything exists", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const host = await open(ws);
    const obs = await host.runTool({ tool: "worktree_enter", input: { name: "../x" } }, { yes: true });
    expect(obs).toMatchObject({ ok: false, code: "schema_invalid", phase: "validate" });
    expect(existsSync(ws.path(".keel", "worktrees"))).toBe(false);
  });

  it("create() does not activate; finish(discard) of an untouched worktree saves nothing; a new host starts inside the active worktree", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const host = await open(ws);
    const service = host.service("worktrees")!;
    const info = await service.create("side");
    expect(service.active()).toBeUndefined();
    expect(host.activeDir).toBe(ws.root);
    const done = await service.finish("side", "discard");
    expect(done).toMatchObject({ ok: true, action: "discard", savedRef: undefined });
    expect(existsSync(info.path)).toBe(false);

    const entered = await service.enter("inside");
    expect(host.activeDir).toBe(entered.path);
    // Confinement follows the active worktree: the main checkout's files are outside it now.
    const escape = await host.runTool({ tool: "read_file", input: { path: "../../../a.txt" } });
    expect(escape).toMatchObject({ ok: false, code: "permission_denied" });
    expect((await host.runTool({ tool: "read_file", input: { path: "a.txt" } })).ok).toBe(true);
    const next = await open(ws);
    expect(next.activeDir).toBe(entered.path);
    expect(next.service("worktrees")!.active()?.name).toBe("inside");
    const obs = await next.runTool({ tool: "worktree_exit", input: { action: "keep" } }, { yes: true });
    expect(obs.ok).toBe(true);
    expect(next.activeDir).toBe(ws.root);
    expect(existsSync(entered.path)).toBe(true);
    // A kept worktree can be entered again.
    const back = await next.service("worktrees")!.enter("inside");
    expect(back.path).toBe(entered.path);
  });

  it("merge refuses when the main checkout is dirty, changing nothing", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const host = await open(ws);
    const service = host.service("worktrees")!;
    const info = await service.enter("dirty");
    writeFileSync(join(info.path, "b.txt"), "b\n");
    ws.write("a.txt", "uncommitted\n");
    const r = await service.exit("merge");
    expect(r.ok).toBe(false);
    expect(r.message).toContain("uncommitted changes");
    expect(r.message).toContain("a.txt");
    expect(ws.read("a.txt")).toBe("uncommitted\n");
    expect(existsSync(join(info.path, "b.txt"))).toBe(true);
    expect(service.active()?.name).toBe("dirty");
  });

  it("gc prunes entries whose directory is gone and clears a stale active worktree", async () => {
    ws = makeWorkspace({ "a.txt": "a\n" }, { git: true });
    const host = await open(ws);
    const manager = host.service("worktree-manager")!;
    const info = await manager.enter("gone");
    rmSync(info.path, { recursive: true, force: true });
    const next = await open(ws);
    expect(next.activeDir).toBe(ws.root);
    expect(next.activeDirError).toContain('"gone"');
    expect(next.diagnostics.items.some((d) => d.source === "worktree" && d.severity === "error" && d.message.includes("gc"))).toBe(true);
    const nextManager = next.service("worktree-manager")!;
    expect((await nextManager.list())[0]).toMatchObject({ name: "gone", exists: false, active: true });
    expect(await nextManager.gc()).toEqual(["gone"]);
    expect(await nextManager.list()).toEqual([]);
    expect(nextManager.active()).toBeUndefined();
    expect(next.activeDirError).toBeUndefined();
  });
});
