import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { bwrapArgs } from "../../../core/sandbox/bwrap.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap).

let ws: TempWorkspace;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

const bash = (h: Host, command: string) => h.runTool({ tool: "bash", input: { command } }, { yes: true });

async function listen(): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.end("hello\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => count };
}

describe("sandbox: workspace-write under bubblewrap", () => {
  it("can write the workspace, but not outside it, not .git/config and not .keel", async () => {
    ws = makeWorkspace({ "keel.config.json": { sandbox: "workspace-write" } }, { git: true });
    const outside = join(ws.keelHome, "outside.txt");
    host = await openTestHost(ws);
    const gitConfig = ws.read(".git/config");
    const obs = await bash(
      host,
      `echo in > inside.txt; echo out > ${outside}; echo x >> .git/config; mkdir -p .keel && echo y > .keel/planted.json; echo done`,
    );
    expect(obs.metadata.sandbox).toBe("workspace-write");
    expect(ws.read("inside.txt")).toBe("in\n");
    expect(existsSync(outside)).toBe(false);
    expect(ws.read(".git/config")).toBe(gitConfig);
    expect(ws.exists(".keel/planted.json")).toBe(false);
    expect(obs.content).toMatch(/Read-only file system/);
  });

  it("read-only mode writes nowhere; /tmp is private", async () => {
    ws = makeWorkspace({ "keel.config.json": { sandbox: "read-only" } }, { git: true });
    host = await openTestHost(ws);
    const obs = await bash(host, "echo a > a.txt; echo t > /tmp/keel-sandbox-probe && cat /tmp/keel-sandbox-probe");
    expect(ws.exists("a.txt")).toBe(false);
    expect(obs.content).toContain("t"); // the private /tmp is writable inside
    expect(existsSync("/tmp/keel-sandbox-probe")).toBe(false);
  });

  it("network: false cannot reach a 127.0.0.1 listener; network: true can", async () => {
    const l = await listen();
    try {
      ws = makeWorkspace({ "keel.config.json": { sandbox: { mode: "workspace-write", network: false } } }, { git: true });
      host = await openTestHost(ws);
      const probe = `exec 3<>/dev/tcp/127.0.0.1/${l.port} && head -1 <&3`;
      const blocked = await bash(host, probe);
      expect(blocked.ok).toBe(false);
      expect(l.connections()).toBe(0);
      await host.close();
      ws.write("keel.config.json", { sandbox: { mode: "workspace-write", network: true } });
      host = await openTestHost(ws);
      const open = await bash(host, probe);
      expect(open).toMatchObject({ ok: true });
      expect(open.content).toContain("hello");
      expect(l.connections()).toBe(1);
    } finally {
      l.server.close();
    }
  });

  it("a setsid background child is gone after the call (own PID namespace)", async () => {
    ws = makeWorkspace({ "keel.config.json": { sandbox: "workspace-write" } }, { git: true });
    host = await openTestHost(ws);
    const marker = `${4000 + Math.floor(Math.random() * 5000)}.${process.pid}`;
    const obs = await bash(host, `setsid sleep ${marker} > /dev/null 2>&1 < /dev/null & echo started`);
    expect(obs.content).toContain("started");
    const alive = () => {
      try {
        return execFileSync("pgrep", ["-f", `sleep ${marker}`], { encoding: "utf8" }).trim();
      } catch {
        return "";
      }
    };
    // The namespace's processes are killed when its init exits; on a busy machine the kernel may reap them a moment
    // after the call returns: poll (a generous safety net, not a timing assertion). One that survives still fails.
    for (const deadline = Date.now() + 10_000; alive() !== "" && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
    expect(alive()).toBe("");
    // control: the same probe does see a live process (pgrep works here)
    const { spawn } = await import("node:child_process");
    const control = spawn("sleep", [marker], { stdio: "ignore" });
    try {
      await once(control, "spawn");
      expect(alive()).not.toBe("");
    } finally {
      control.kill("SIGKILL");
    }
  });

  it("levels merge to the strictest sandbox: an untrusted workspace can tighten it, never loosen it", async () => {
    ws = makeWorkspace({ "keel.config.json": { sandbox: "off" } }, { git: true });
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ sandbox: "read-only" }));
    host = await openTestHost(ws, { trust: true });
    const strict = { mode: "read-only", network: true, denyRead: [], credentials: "hidden", workspaceCommands: true, unixSockets: false };
    expect(host.sandbox.settings).toEqual(strict);
    expect(host.config.sandbox).toEqual(strict);
  });

  it("denyRead paths accumulate across levels; only your level (or an approved trusted workspace) can make credentials visible", async () => {
    ws = makeWorkspace({ "keel.config.json": { sandbox: { denyRead: [".env"], credentials: "visible" } } }, { git: true });
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ sandbox: { mode: "workspace-write", denyRead: ["~/.config/secret-app"] } }));
    host = await openTestHost(ws);
    expect(host.sandbox.settings).toEqual({
      mode: "workspace-write",
      network: true,
      denyRead: ["~/.config/secret-app", ".env"],
      credentials: "hidden",
      workspaceCommands: true,
      unixSockets: false,
    });
    // The untrusted workspace's "visible" is ignored, with the usual warning naming the key.
    expect(host.diagnostics.items.map((d) => `${d.path} ${d.message}`)).toContainEqual(expect.stringMatching(/sandbox\.credentials.*not trusted/));
    await host.close();
    // Your own config may show them.
    writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ sandbox: { mode: "workspace-write", credentials: "visible" } }));
    ws.write("keel.config.json", { sandbox: { denyRead: [".env"] } });
    host = await openTestHost(ws);
    expect(host.sandbox.settings).toMatchObject({ credentials: "visible", denyRead: [".env"] });
  });

  it("a sandbox value that is invalid in one level stops keel naming that file, even when a later level's value is valid (its restrictions are never dropped silently)", async () => {
    ws = makeWorkspace({ "keel.config.json": { sandbox: "workspace-write" } }, { git: true });
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ sandbox: { mode: "read-only", denyRead: ["~/**/*.kdbx"] } }));
    await expect(openTestHost(ws)).rejects.toThrow(/Invalid config field "sandbox" in .*config\.json: .*no wildcards/);
  });

  it("when bwrap cannot run, the call is refused with a clear message and nothing runs unsandboxed", async () => {
    ws = makeWorkspace({ "keel.config.json": { sandbox: "workspace-write" } }, { git: true });
    // A PATH with bash but without bwrap.
    const bin = join(ws.keelHome, "bin");
    mkdirSync(bin);
    symlinkSync(execFileSync("bash", ["-c", "command -v bash"], { encoding: "utf8" }).trim(), join(bin, "bash"));
    symlinkSync(process.execPath, join(bin, "node"));
    const r = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: "echo ran > ran.txt" })], {
      cwd: ws.root,
      env: { ...ws.env, PATH: bin },
    });
    expect(r.json()).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(r.json().content).toMatch(/sandbox \(workspace-write\) cannot run: .*bubblewrap .*not installed.*never runs it unsandboxed/);
    expect(ws.exists("ran.txt")).toBe(false);
  });

  it("builds the mounts in covering order: private /tmp first, then the boundary, then .git and .keel read-only", () => {
    ws = makeWorkspace({}, { git: true });
    const args = bwrapArgs(
      { mode: "workspace-write", network: false, denyRead: [], credentials: "hidden", workspaceCommands: false, unixSockets: false },
      { root: ws.root, cwd: ws.root, argv: ["bash", "-c", "true"] },
    );
    const text = args.join(" ");
    expect(text.indexOf("--tmpfs /tmp")).toBeLessThan(text.indexOf(`--bind ${ws.root} ${ws.root}`));
    expect(text.indexOf(`--bind ${ws.root} ${ws.root}`)).toBeLessThan(text.indexOf(`--ro-bind ${ws.root}/.git`));
    expect(args).toEqual(expect.arrayContaining(["--unshare-net", "--unshare-pid", "--die-with-parent"]));
    expect(readFileSync(ws.path(".git/HEAD"), "utf8")).toContain("main");
  });
});
