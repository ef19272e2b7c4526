import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap).
// With the network on, the seccomp filter refuses every Unix socket (unix-sockets.test.ts): these tests allow them
// (`unixSockets: true`), so what they check is that the socket files are hidden.

let ws: TempWorkspace | undefined;
let dir: string | undefined;
let agent: Server | undefined;
afterEach(async () => {
  await new Promise((done) => (agent ? agent.close(done) : done(undefined)));
  ws?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
  ws = dir = agent = undefined;
});

/** A stand-in for ssh-agent: a socket outside /tmp (the sandbox's private /tmp would hide it anyway) answering every connection. */
async function startAgent(name = "agent.sock"): Promise<string> {
  dir = mkdtempSync("/var/tmp/keel-agent-");
  const socket = join(dir, name);
  agent = createServer((c) => c.end("AGENT-SIGNS-FOR-YOU\n"));
  await new Promise<void>((done) => agent!.listen(socket, done));
  return socket;
}

/** A node one-liner that connects to the socket at `path` (a shell word) and prints what it answers, or why it could not. */
const connect = (path: string) =>
  `${JSON.stringify(process.execPath)} -e 'require("net").connect(process.argv[1]).on("data", (d) => process.stdout.write(String(d))).on("error", (e) => console.log("no agent: " + e.code))' ${path}`;
const CONNECT = connect('"$SSH_AUTH_SOCK"');

describe("the SSH agent's socket inside the sandbox (real CLI, bwrap)", () => {
  it("is hidden with your credential stores (a socket on a read-only mount still connects), and reachable again with credentials visible", async () => {
    const socket = await startAgent();
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ sandbox: { mode: "workspace-write", unixSockets: true } });
    const env = { ...ws.env, SSH_AUTH_SOCK: socket };
    const call = () => runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: CONNECT })], { cwd: ws!.root, env });
    const hidden = await call();
    expect(hidden.json(), hidden.stderr).toMatchObject({ ok: true, metadata: { sandbox: "workspace-write" } });
    expect(hidden.json().content).not.toContain("AGENT-SIGNS-FOR-YOU");
    expect(hidden.json().content).toContain("no agent");
    ws.writeUserConfig({ sandbox: { mode: "workspace-write", credentials: "visible", unixSockets: true } });
    expect((await call()).json().content).toContain("AGENT-SIGNS-FOR-YOU");
  });

  it("the session's D-Bus socket in $XDG_RUNTIME_DIR (systemd-run --user runs anything unconfined) is hidden, credentials visible or not", async () => {
    const socket = await startAgent("bus");
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ sandbox: { mode: "workspace-write", credentials: "visible", unixSockets: true } });
    const env = { ...ws.env, XDG_RUNTIME_DIR: dir!, DBUS_SESSION_BUS_ADDRESS: `unix:path=${socket}` };
    const r = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: connect('"$XDG_RUNTIME_DIR/bus"') })], {
      cwd: ws.root,
      env,
    });
    expect(r.json(), r.stderr).toMatchObject({ ok: true, metadata: { sandbox: "workspace-write" } });
    expect(r.json().content).not.toContain("AGENT-SIGNS-FOR-YOU");
    expect(r.json().content).toContain("no agent");
  });

  it("the X server's cookie (~/.Xauthority, $XAUTHORITY) reads empty, credentials visible or not: the X socket is abstract, reachable with the network on", async () => {
    dir = mkdtempSync("/var/tmp/keel-x11-");
    const home = join(dir, "home");
    mkdirSync(home);
    writeFileSync(join(home, ".Xauthority"), "HOME-X-COOKIE\n");
    writeFileSync(join(dir, "xauth"), "MOVED-X-COOKIE\n");
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ sandbox: { mode: "workspace-write", credentials: "visible" } });
    const env = { ...ws.env, HOME: home, XAUTHORITY: join(dir, "xauth") };
    const command = 'cat ~/.Xauthority "$XAUTHORITY"; echo done';
    const r = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command })], { cwd: ws.root, env });
    expect(r.json(), r.stderr).toMatchObject({ metadata: { sandbox: "workspace-write" } });
    expect(r.json().content).toContain("done");
    expect(r.json().content).not.toContain("X-COOKIE");
  });
});
