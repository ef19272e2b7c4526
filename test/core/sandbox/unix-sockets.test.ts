import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap).

let ws: TempWorkspace | undefined;
let dir: string | undefined;
const servers: { close(done: () => void): unknown }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((done) => s.close(() => done()));
  ws?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
  ws = dir = undefined;
});

/** A Unix socket server at `address` (a path, or "\0name" for an abstract one) answering every connection; counts them. */
async function unixServer(address: string): Promise<{ connections: () => number }> {
  let count = 0;
  const server: Server = createServer((c) => {
    count++;
    c.end("UNIX-SERVER-ANSWERS\n");
  });
  await new Promise<void>((done) => server.listen(address, done));
  servers.push(server);
  return { connections: () => count };
}

/** A node one-liner connecting to the Unix socket named by its first argument (a JSON string), printing the answer or the error code. */
const connect = (address: string) =>
  `${JSON.stringify(process.execPath)} -e 'require("net").connect(JSON.parse(process.argv[1])).on("data", (d) => process.stdout.write(String(d))).on("error", (e) => console.log("refused: " + e.code))' '${JSON.stringify(address)}'`;

const call = (command: string) => runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command })], { cwd: ws!.root, env: ws!.env });

const abstractName = () => `\0keel-test-${process.pid}-${Math.random().toString(36).slice(2)}`;

describe("Unix sockets inside the sandbox (real CLI, bwrap)", () => {
  it("an abstract socket (the X server's, a D-Bus bus's kind) is refused with EPERM and never connected; unixSockets: true in your config allows it", async () => {
    const name = abstractName();
    const server = await unixServer(name);
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ sandbox: "workspace-write" });
    const blocked = await call(connect(name));
    expect(blocked.json(), blocked.stderr).toMatchObject({ ok: true, metadata: { sandbox: "workspace-write" } });
    expect(blocked.json().content).toContain("refused: EPERM");
    expect(blocked.json().content).not.toContain("UNIX-SERVER-ANSWERS");
    expect(server.connections()).toBe(0);
    ws.writeUserConfig({ sandbox: { mode: "workspace-write", unixSockets: true } });
    const allowed = await call(connect(name));
    expect(allowed.json().content).toContain("UNIX-SERVER-ANSWERS");
    expect(server.connections()).toBe(1);
  });

  it("a socket file in the workspace is refused too, with the network off as well; unixSockets: true with network: false connects", async () => {
    ws = makeWorkspace({}, { git: true, under: "/var/tmp" });
    const server = await unixServer(ws.path("app.sock"));
    ws.writeUserConfig({ sandbox: "workspace-write" });
    const blocked = await call(connect(ws.path("app.sock")));
    expect(blocked.json().content).toContain("refused: EPERM");
    // The socket files of your session's runtime folder (the accessibility bus, PipeWire) are files too: no network is no exception.
    ws.writeUserConfig({ sandbox: { mode: "workspace-write", network: false } });
    const offline = await call(connect(ws.path("app.sock")));
    expect(offline.json().content).toContain("refused: EPERM");
    expect(server.connections()).toBe(0);
    ws.writeUserConfig({ sandbox: { mode: "workspace-write", network: false, unixSockets: true } });
    const open = await call(connect(ws.path("app.sock")));
    expect(open.json().content).toContain("UNIX-SERVER-ANSWERS");
    expect(server.connections()).toBe(1);
  });

  it("pipes, a child process's stdio (libuv's socketpair), TCP to 127.0.0.1 and git keep working", async () => {
    let requests = 0;
    const http = createHttpServer((_req, res) => {
      requests++;
      res.end("HTTP-ANSWER");
    });
    await new Promise<void>((done) => http.listen(0, "127.0.0.1", done));
    servers.push(http);
    const port = (http.address() as AddressInfo).port;
    ws = makeWorkspace({ "a.txt": "one\n" }, { git: true });
    ws.writeUserConfig({ sandbox: "workspace-write" });
    const node = JSON.stringify(process.execPath);
    const command = [
      "echo piped | tr a-z A-Z",
      `${node} -e 'process.stdout.write(require("child_process").execFileSync("echo", ["child-ok"]))'`,
      `${node} -e 'require("child_process").spawn("echo", ["spawned-ok"], { stdio: "inherit" })'`,
      `${node} -e 'fetch("http://127.0.0.1:${port}/").then((r) => r.text()).then(console.log, (e) => console.log("fetch failed", e.cause?.code))'`,
      "git log --format=%s -1",
      "echo two >> a.txt && git diff --stat",
    ].join("; ");
    const r = await call(command);
    expect(r.json(), r.stderr).toMatchObject({ ok: true, metadata: { sandbox: "workspace-write" } });
    const out = r.json().content as string;
    for (const want of ["PIPED", "child-ok", "spawned-ok", "HTTP-ANSWER", "a.txt | 1 +"]) expect(out).toContain(want);
    expect(requests).toBe(1);
    expect(ws.git("log", "--format=%s", "-1").trim()).not.toBe("");
    expect(out).toContain(ws.git("log", "--format=%s", "-1").trim());
  });

  it("an untrusted workspace's unixSockets: true is ignored with a warning; its false wins over yours", async () => {
    const name = abstractName();
    const server = await unixServer(name);
    ws = makeWorkspace({ "keel.config.json": { sandbox: { unixSockets: true } } }, { git: true });
    ws.writeUserConfig({ sandbox: "workspace-write" });
    const r = await call(connect(name));
    expect(r.json().content).toContain("refused: EPERM");
    expect(server.connections()).toBe(0);
    const { diagnostics } = (await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env })).json();
    expect(diagnostics).toContainEqual(expect.objectContaining({ path: "sandbox.unixSockets", message: expect.stringMatching(/not trusted/) }));
    // A workspace's false tightens: your true is overruled.
    ws.write("keel.config.json", { sandbox: { unixSockets: false } });
    ws.writeUserConfig({ sandbox: { mode: "workspace-write", unixSockets: true } });
    expect((await call(connect(name))).json().content).toContain("refused: EPERM");
    expect(server.connections()).toBe(0);
  });

  it("a bwrap that cannot load the filter makes the sandbox unavailable, saying so: nothing runs", async () => {
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ sandbox: "workspace-write" });
    // A bwrap (outside the workspace) that gets an empty filter: the real one refuses it.
    dir = mkdtempSync("/var/tmp/keel-bwrap-");
    const real = (await import("node:child_process")).execFileSync("sh", ["-c", "command -v bwrap"], { encoding: "utf8" }).trim();
    writeFileSync(join(dir, "bwrap"), `#!/bin/sh\ncase " $* " in *" --seccomp "*) exec ${real} "$@" 3</dev/null ;; esac\nexec ${real} "$@"\n`);
    chmodSync(join(dir, "bwrap"), 0o755);
    const env = { ...ws.env, PATH: `${dir}${delimiter}${ws.env.PATH}` };
    const r = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: "echo ran > ran.txt" })], { cwd: ws.root, env });
    expect(r.json()).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(r.json().content).toMatch(/cannot load the seccomp filter .*"unixSockets": true/);
    expect(ws.exists("ran.txt")).toBe(false);
    const doctor = (await runKeel(["--json", "doctor"], { cwd: ws.root, env })).json<{ checks: { name: string; status: string; message: string }[] }>();
    expect(doctor.checks.find((c) => c.name === "sandbox")).toMatchObject({ status: "fail", message: expect.stringMatching(/seccomp filter/) });
    // Without the filter (Unix sockets allowed) the same bwrap runs the command.
    ws.writeUserConfig({ sandbox: { mode: "workspace-write", unixSockets: true } });
    const offline = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: "echo ran > ran.txt" })], { cwd: ws.root, env });
    expect(offline.json()).toMatchObject({ ok: true });
    expect(ws.read("ran.txt")).toBe("ran\n");
  });
});
