import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { BASH_MAX_OUTPUT_BYTES, type BashData } from "../../../core/tools/bash.js";
import { alive, waitDead } from "../../helpers/processes.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

describe("bash", () => {
  it("returns stdout, stderr and the exit code", async () => {
    ws = makeWorkspace({ "sub/x.txt": "" });
    host = await openTestHost(ws, { yes: true });
    const obs = await host.runTool({ tool: "bash", input: { command: "pwd; ls; echo warn >&2", cwd: "sub" } });
    expect(obs).toMatchObject({ ok: true, code: "ok", phase: "done" });
    const data = obs.data as BashData;
    expect(data).toMatchObject({ exitCode: 0, stdout: `${ws.path("sub")}\nx.txt`, stderr: "warn", timedOut: false });
    expect(obs.content).toBe(`${ws.path("sub")}\nx.txt\n--- stderr ---\nwarn\n[exit code 0]`);
    const fail = await host.runTool({ tool: "bash", input: { command: "exit 7" } });
    expect(fail).toMatchObject({ ok: false, phase: "execute", code: "execution_failed", data: { exitCode: 7 } });
  });

  it("never hands the model's API key to a command (OPENAI_API_KEY and model.apiKeyEnv are withheld; other variables pass)", async () => {
    ws = makeWorkspace();
    ws.writeUserConfig({ model: { name: "m", apiKeyEnv: "MY_MODEL_KEY" } });
    const env = { ...ws.env, OPENAI_API_KEY: "sk-secret-1", MY_MODEL_KEY: "sk-secret-2", KEEL_TEST_VISIBLE: "visible" };
    host = await openTestHost(ws, { yes: true, env });
    const obs = await host.runTool({
      tool: "bash",
      input: { command: 'echo "${OPENAI_API_KEY:-none} ${MY_MODEL_KEY:-none} ${KEEL_TEST_VISIBLE:-none}"; env' },
    });
    expect((obs.data as BashData).stdout.split("\n")[0]).toBe("none none visible");
    expect(obs.content).not.toContain("sk-secret");
  });

  it("withholds the model's key even from a commandEnv.pass that names it (and KEEL_TRUST), whatever its name looks like", async () => {
    ws = makeWorkspace();
    // `LLM_ACCESS` looks like no secret, and your pass list names every variable: only being the model's key keeps it out
    ws.writeUserConfig({ model: { name: "m", apiKeyEnv: "LLM_ACCESS" }, commandEnv: { pass: ["*"] } });
    const env = { ...ws.env, LLM_ACCESS: "model-key-value", OPENAI_API_KEY: "sk-secret-1", KEEL_TRUST: "1", KEEL_TEST_VISIBLE: "visible" };
    host = await openTestHost(ws, { yes: true, env });
    const obs = await host.runTool({
      tool: "bash",
      input: { command: 'echo "${LLM_ACCESS:-none} ${OPENAI_API_KEY:-none} ${KEEL_TRUST:-none} ${KEEL_TEST_VISIBLE:-none}"' },
    });
    expect((obs.data as BashData).stdout).toBe("none none none visible");
  });

  it("refuses a cwd that is a link to a folder outside the workspace, and runs nothing there", async () => {
    ws = makeWorkspace();
    const outside = ws.path("..", "outside");
    mkdirSync(outside);
    symlinkSync(outside, ws.path("out"));
    host = await openTestHost(ws, { yes: true });
    const obs = await host.runTool({ tool: "bash", input: { command: "touch escaped", cwd: "out" } });
    expect(obs).toMatchObject({ ok: false, code: "permission_denied", metadata: { reason: "symlink_escape" } });
    expect(existsSync(join(outside, "escaped"))).toBe(false);
  });

  it("confines cwd to the workspace", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws, { yes: true });
    const obs = await host.runTool({ tool: "bash", input: { command: "touch escaped", cwd: ".." } });
    expect(obs).toMatchObject({ ok: false, code: "permission_denied" });
    expect(existsSync(ws.path("..", "escaped"))).toBe(false);
    expect((await host.runTool({ tool: "bash", input: { command: "true", cwd: "missing" } })).content).toContain("not a folder");
  });

  it("times out with its own limit and kills the whole process group", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws, { yes: true });
    // Both sleeps outlast the test's own timeout: only the 300 ms limit can end this call.
    const obs = await host.runTool({ tool: "bash", input: { command: "sleep 600 & echo $! > child.pid; sleep 600; echo never", timeout_ms: 300 } });
    expect(obs).toMatchObject({ ok: false, phase: "execute", code: "timeout", data: { timedOut: true } });
    expect(obs.content).toContain("timed out after 300 ms");
    const pid = Number(ws.read("child.pid"));
    expect(await waitDead(pid)).toBe(true);
  });

  it("stops background children when the command ends, without waiting for them", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws, { yes: true });
    // Waiting for the background child would outlast the test's own timeout.
    const obs = await host.runTool({ tool: "bash", input: { command: "sleep 600 & echo $! > bg.pid; echo started" } });
    expect(obs).toMatchObject({ ok: true, data: { stdout: "started" } });
    expect(await waitDead(Number(ws.read("bg.pid")))).toBe(true);
  });

  it("is cancelled by the caller's signal and kills its children", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws, { yes: true });
    const controller = new AbortController();
    const pending = host.runTool({ tool: "bash", input: { command: "sleep 600 & echo $! > c.pid; wait" } }, { signal: controller.signal });
    // The pid in full (the file exists before `echo` has written it): the child runs.
    const written = () => ws!.exists("c.pid") && Number(ws!.read("c.pid")) > 0;
    for (const end = Date.now() + 30_000; !written() && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const obs = await pending;
    expect(obs).toMatchObject({ ok: false, code: "cancelled" });
    expect(await waitDead(Number(ws.read("c.pid")))).toBe(true);
  });

  it("on a timeout also kills what left the process group (`setsid cmd &`), found by the call's mark in its environment", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws, { yes: true });
    // setsid puts sleep in a session (and process group) of its own: killing the call's group does not reach it.
    const obs = await host.runTool({
      tool: "bash",
      input: { command: "setsid sleep 600 & echo $! > s.pid; (setsid sh -c 'sleep 600 & echo $! > n.pid; wait' &); sleep 600", timeout_ms: 1_000 },
    });
    expect(obs).toMatchObject({ ok: false, code: "timeout" });
    for (const file of ["s.pid", "n.pid"]) {
      const pid = Number(ws.read(file));
      const dead = await waitDead(pid);
      if (!dead) process.kill(pid, "SIGKILL");
      expect(dead, file).toBe(true);
    }
  });

  it("on a cancel also kills what left the process group, and nothing that does not carry the call's mark", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws, { yes: true });
    // A process of the same user started outside the call (same command line, no mark) must survive.
    const { spawn } = await import("node:child_process");
    const bystander = spawn("sleep", ["600"], { stdio: "ignore" });
    try {
      const controller = new AbortController();
      const pending = host.runTool({ tool: "bash", input: { command: "setsid sleep 600 & echo $! > s.pid; wait" } }, { signal: controller.signal });
      const written = () => ws!.exists("s.pid") && Number(ws!.read("s.pid")) > 0;
      for (const end = Date.now() + 30_000; !written() && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
      controller.abort();
      expect(await pending).toMatchObject({ ok: false, code: "cancelled" });
      const pid = Number(ws.read("s.pid"));
      const dead = await waitDead(pid);
      if (!dead) process.kill(pid, "SIGKILL");
      expect(dead).toBe(true);
      expect(alive(bystander.pid!)).toBe(true);
    } finally {
      bystander.kill("SIGKILL");
    }
  });

  it("sets the pipeline backstop above its own maximum timeout", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws);
    const def = host.registry.get("bash")!;
    expect(def.timeoutMs).toBeGreaterThan(600_000);
    expect((def.inputSchema as { properties: { timeout_ms: { maximum: number } } }).properties.timeout_ms.maximum).toBe(600_000);
    const tooLong = await host.runTool({ tool: "bash", input: { command: "true", timeout_ms: 700_000 } }, { yes: true });
    expect(tooLong).toMatchObject({ code: "schema_invalid" });
  });

  it("permission rules match the command: bash(echo *) is allowed without --yes, others still ask", async () => {
    ws = makeWorkspace({ "keel.config.json": { permissions: { allow: ["bash(echo *)"] } } });
    host = await openTestHost(ws, { trust: true }); // a workspace's allow rules apply only when it is trusted
    const ok = await host.runTool({ tool: "bash", input: { command: "echo allowed" } });
    expect(ok).toMatchObject({ ok: true, data: { stdout: "allowed" } });
    const chained = await host.runTool({ tool: "bash", input: { command: "echo a; touch b" } });
    expect(chained).toMatchObject({ code: "approval_required" });
    expect(ws.exists("b")).toBe(false);
  });

  it("never prints binary output: it becomes an artifact named in content", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws, { yes: true });
    const obs = await host.runTool({ tool: "bash", input: { command: "printf 'abc\\000\\001\\002def'" } });
    expect(obs.ok).toBe(true);
    expect(obs.content).toMatch(
      /^\[stdout is binary \(9 bytes\); not shown, kept as an artifact\]\n\[exit code 0\]\n\[stdout application\/octet-stream, 9 bytes, saved to .keel\/artifacts\/.+\.bin\]$/,
    );
    expect(obs.content).not.toContain("\u0000");
    expect(obs.artifacts).toHaveLength(1);
    expect(readFileSync(ws.path(obs.artifacts[0]!.path))).toEqual(Buffer.from("abc\0\x01\x02def", "latin1"));
  });

  it("keeps binary stdout and stderr byte-exact as artifacts (NUL bytes or invalid UTF-8); text stays text", async () => {
    const bytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(5000), Buffer.from("\n")]);
    ws = makeWorkspace();
    writeFileSync(ws.path("r.bin"), bytes);
    host = await openTestHost(ws, { yes: true });
    const obs = await host.runTool({ tool: "bash", input: { command: "cat r.bin; printf 'bad \\377\\376 utf8' >&2; exit 3" } });
    expect(obs).toMatchObject({ ok: false, code: "execution_failed", data: { exitCode: 3, binary: ["stdout", "stderr"] } });
    const [out, err] = obs.artifacts;
    expect(out).toMatchObject({ kind: "stdout", bytes: bytes.length });
    expect(readFileSync(ws.path(out!.path)).equals(bytes)).toBe(true);
    expect(readFileSync(ws.path(err!.path)).equals(Buffer.from("bad \xff\xfe utf8", "latin1"))).toBe(true);
    expect(obs.content).toContain(`[stdout is binary (${bytes.length} bytes)`);
    expect(obs.content).toContain("[exit code 3]");

    const text = await host.runTool({ tool: "bash", input: { command: "printf 'héllo ✓\\n'" } });
    expect(text).toMatchObject({ ok: true, artifacts: [], data: { stdout: "héllo ✓" } });
    expect((text.data as BashData).binary).toBeUndefined();
  });
});

describe("bash output past its cap", () => {
  it("stops the command and says so: truncated: true, the cap, and the artifact path in the content", async () => {
    ws = makeWorkspace();
    host = await openTestHost(ws, { yes: true });
    const obs = await host.runTool({ tool: "bash", input: { command: `head -c ${BASH_MAX_OUTPUT_BYTES + 4096} /dev/zero | tr '\\0' a; echo never-reached` } });
    expect(obs).toMatchObject({ ok: false, code: "execution_failed", truncated: true });
    expect(obs.content).toContain("16 MiB cap");
    const artifact = obs.artifacts.find((a) => a.kind === "full-output")!;
    expect(obs.content).toContain(artifact.path);
    expect(obs.content).not.toContain("never-reached");
    expect((obs.data as { truncated?: boolean }).truncated).toBe(true);
  });
});
