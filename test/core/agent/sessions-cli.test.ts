import { execa } from "execa";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import { requestText, startOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";
import { KEEL_BIN, runKeel } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let server: OpenAIServer;
const cleanup: TempWorkspace[] = [];
beforeAll(async () => {
  server = await startOpenAIServer();
});
afterAll(async () => {
  await server.close();
  for (const ws of cleanup) ws.cleanup();
});

function workspace(files: Record<string, string | object> = {}): TempWorkspace {
  const ws = makeWorkspace(files);
  ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
  cleanup.push(ws);
  return ws;
}
const state = (ws: TempWorkspace, id: string) => sessionState(ws.root, id);
const waitFor = async (fn: () => boolean, ms = 60_000) => {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe("keel run / sessions / send (real CLI processes)", () => {
  it("exits 2 with configuration help when no model is configured", async () => {
    const ws = makeWorkspace();
    cleanup.push(ws);
    const r = await runKeel(["run", "hello"], { cwd: ws.root, env: { ...ws.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "" } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("No model is configured");
    expect(r.stderr).toContain("scripted:");
  });

  it("the configuration help works as printed in a fresh, untrusted workspace", async () => {
    const ws = makeWorkspace({ "script.json": { turns: [{ text: "scripted answer" }] } });
    cleanup.push(ws);
    const env = { ...ws.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" };
    const help = (await runKeel(["run", "hello"], { cwd: ws.root, env })).stderr;
    // Each "FILE ...: JSON" line, followed as printed ($KEEL_HOME is the user folder); the local server stands in for Ollama.
    const lines = [...help.matchAll(/^ {2}([^\s:]+)[^{\n]*?: (\{.*\})$/gm)].map((m) => ({ file: m[1]!, json: m[2]! }));
    expect(lines.map((l) => l.json)).toEqual(['{"model": {"name": "llama3.1", "baseUrl": "http://localhost:11434/v1"}}', '{"model": "scripted:script.json"}']);
    const write = (file: string, json: string) => (file.startsWith("$KEEL_HOME/") ? ws.writeUserConfig(JSON.parse(json)) : ws.write(file, json));

    write(lines[0]!.file, lines[0]!.json.replace("http://localhost:11434/v1", server.baseUrl));
    server.push({ text: "answer from the configured endpoint" });
    const endpoint = await runKeel(["run", "hello"], { cwd: ws.root, env });
    expect(endpoint.stderr).not.toContain("not trusted");
    expect(endpoint.exitCode, endpoint.stderr).toBe(0);
    expect(endpoint.stdout).toContain("answer from the configured endpoint");

    write(lines[1]!.file, lines[1]!.json);
    const scripted = await runKeel(["run", "hello"], { cwd: ws.root, env });
    expect(scripted.exitCode, scripted.stderr).toBe(0);
    expect(scripted.stdout).toContain("scripted answer");
  });

  it("streams the answer to stdout and prints JSON with --json", async () => {
    const ws = workspace();
    server.push({ text: "streamed answer text" });
    const r = await runKeel(["run", "say something"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe("streamed answer text");
    server.push({ text: "json answer" });
    const j = await runKeel(["run", "again", "--json"], { cwd: ws.root, env: ws.env });
    expect(j.json()).toMatchObject({ ok: true, reason: "answer", text: "json answer" });
    const list = await runKeel(["sessions", "list", "--json"], { cwd: ws.root, env: ws.env });
    expect(list.json().sessions).toHaveLength(2);
  });

  it("kill -9 during a tool call, then --resume: interrupted turn recorded, nothing executed twice, conversation continues", async () => {
    const ws = workspace({
      "script.json": [
        { text: "running", toolCalls: [{ id: "slow", name: "bash", arguments: { command: "echo ran >> count.txt; sleep 120" } }] },
        { text: "continuing after the crash" },
      ],
    });
    const child = execa("node", [KEEL_BIN, "run", "--yes", "--model", "scripted:script.json", "--session", "crash1", "do it"], {
      cwd: ws.root,
      env: ws.env,
      reject: false,
      stdin: "ignore",
    });
    await waitFor(() => existsSync(ws.path("count.txt")));
    child.kill("SIGKILL");
    await child;
    expect((await state(ws, "crash1")).status).toBe("running");
    appendFileSync(ws.path(".keel", "sessions", "crash1", "events.jsonl"), '{"type":"torn');
    const r = await runKeel(["run", "--resume", "crash1", "--yes", "--model", "scripted:script.json"], { cwd: ws.root, env: ws.env });
    expect(r.stderr).toContain("answer");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("continuing after the crash");
    expect(readFileSync(ws.path("count.txt"), "utf8").trim().split("\n")).toEqual(["ran"]);
    const s = await state(ws, "crash1");
    expect(s.messages.find((m) => m.role === "tool")!.content).toMatch(/Outcome unknown.*NOT re-executed/);
    const events = readEvents(ws.path(".keel", "sessions", "crash1", "events.jsonl"));
    const recovery = events.filter((e) => e.type === "recovery");
    expect(recovery).toHaveLength(1);
    expect(recovery[0]).toMatchObject({ unknownCalls: [{ id: "slow", tool: "bash", started: true }] });
    expect(events.filter((e) => e.type === "tool_execute" && e.callId === "slow")).toHaveLength(1);
  });

  it("usage errors: an unknown sessions subcommand, and --session with --resume", async () => {
    const ws = workspace();
    const bogus = await runKeel(["sessions", "bogus"], { cwd: ws.root, env: ws.env });
    expect(bogus.exitCode).toBe(2);
    expect(bogus.stderr).toContain('Unknown command "keel sessions bogus"');
    expect(bogus.stderr).toContain("show ID");
    const both = await runKeel(["run", "--resume", "s1", "--session", "s2", "more"], { cwd: ws.root, env: ws.env });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain("drop --session s2");
    expect(existsSync(ws.path(".keel", "sessions", "s2"))).toBe(false);
  });

  it("refuses a second --resume while the session is busy", async () => {
    // The model answers only after the test's own timeout: the first run holds the session until Ctrl-C.
    const ws = workspace({ "script.json": [{ text: "slow", delayMs: 600_000 }, { text: "x" }] });
    const child = execa("node", [KEEL_BIN, "run", "--model", "scripted:script.json", "--session", "busy1", "wait"], {
      cwd: ws.root,
      env: ws.env,
      reject: false,
      stdin: "ignore",
    });
    await waitFor(() => existsSync(ws.path(".keel", "sessions", "busy1", "writer.lock")));
    const r = await runKeel(["run", "--resume", "busy1", "more"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/Session busy1 is busy: keel process \d+ is running it/);
    child.kill("SIGINT");
    await child;
    expect(existsSync(ws.path(".keel", "sessions", "busy1", "writer.lock"))).toBe(false);
  });

  it("non-interactive approval pauses; a separate process approves and the run completes", async () => {
    const ws = workspace();
    server.push({ text: "", toolCalls: [{ id: "w1", name: "bash", arguments: { command: "echo approved > approved.txt" } }] });
    const r = await runKeel(["run", "--session", "ap1", "write the file"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain("keel sessions approve ap1");
    expect((await state(ws, "ap1")).status).toBe("awaiting_approval");
    expect((await state(ws, "ap1")).pending!.calls[0]).toMatchObject({ id: "w1", status: "awaiting_approval" });
    expect(existsSync(ws.path("approved.txt"))).toBe(false);
    const again = await runKeel(["run", "--resume", "ap1", "x"], { cwd: ws.root, env: ws.env });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain("waiting for approval");
    server.push({ text: "file written" });
    const before = server.requests.length;
    const ok = await runKeel(["sessions", "approve", "ap1"], { cwd: ws.root, env: ws.env });
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toContain("file written");
    expect(readFileSync(ws.path("approved.txt"), "utf8").trim()).toBe("approved");
    expect((await state(ws, "ap1")).status).toBe("idle");
    const sent = server.requests[before]!.messages.find((m) => m.role === "tool" && m.tool_call_id === "w1");
    expect(sent!.content).not.toMatch(/approval_required/);
  });

  it("rejection reaches the model as user_denied and nothing runs", async () => {
    const ws = workspace();
    server.push({ text: "", toolCalls: [{ id: "d1", name: "bash", arguments: { command: "echo no > denied.txt" } }] });
    await runKeel(["run", "--session", "rj1", "write the file"], { cwd: ws.root, env: ws.env });
    server.push({ text: "ok, not writing" });
    const before = server.requests.length;
    const r = await runKeel(["sessions", "reject", "rj1"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    expect(existsSync(ws.path("denied.txt"))).toBe(false);
    const tool = server.requests[before]!.messages.find((m) => m.role === "tool" && m.tool_call_id === "d1")!;
    expect(tool.content).toMatch(/user_denied/);
    expect(tool.content).toMatch(/Nothing was executed/);
  });

  it("keel send queues durable messages, injected in FIFO order on the next resume", async () => {
    const ws = workspace();
    server.push({ text: "first answer" });
    await runKeel(["run", "--session", "q1", "start"], { cwd: ws.root, env: ws.env });
    expect((await runKeel(["send", "q1", "queued one"], { cwd: ws.root, env: ws.env })).exitCode).toBe(0);
    await runKeel(["send", "q1", "queued two"], { cwd: ws.root, env: ws.env });
    expect((await runKeel(["send", "nope", "x"], { cwd: ws.root, env: ws.env })).exitCode).toBe(2);
    server.push({ text: "handled the queue" });
    const before = server.requests.length;
    const r = await runKeel(["run", "--resume", "q1"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    const text = requestText(server.requests[before]!);
    expect(text.indexOf("queued one")).toBeGreaterThan(text.indexOf("first answer"));
    expect(text.indexOf("queued two")).toBeGreaterThan(text.indexOf("queued one"));
    const show = await runKeel(["sessions", "show", "q1", "--json"], { cwd: ws.root, env: ws.env });
    expect(show.json().state.turn).toBe(1);
    const ev = await runKeel(["sessions", "events", "q1", "--json"], { cwd: ws.root, env: ws.env });
    expect(
      ev.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).type),
    ).toContain("queue_drained");
  });

  it("sessions events --follow streams events until the session stops", async () => {
    const ws = workspace({
      "script.json": [{ text: "", delayMs: 1200, toolCalls: [{ name: "read_file", arguments: { path: "script.json" } }] }, { text: "followed" }],
    });
    const child = execa("node", [KEEL_BIN, "run", "--model", "scripted:script.json", "--session", "f1", "go"], {
      cwd: ws.root,
      env: ws.env,
      reject: false,
      stdin: "ignore",
    });
    await waitFor(() => existsSync(ws.path(".keel", "sessions", "f1", "writer.lock")));
    const follow = await runKeel(["sessions", "events", "f1", "--follow", "--json"], { cwd: ws.root, env: ws.env, timeout: 20_000 });
    expect((await child).exitCode).toBe(0);
    expect(follow.exitCode).toBe(0);
    const types = follow.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).type);
    expect(types[0]).toBe("session_start");
    expect(types).toContain("tool_observation");
    // the session's own record (session_*) is interleaved; the last event proper is the turn's end
    expect(types.filter((t) => !t.startsWith("session_")).at(-1)).toBe("after_turn");
    expect(types).toContain("session_message");
  });

  it("on a terminal the user answers inline; 'always' covers the rest of the session", async () => {
    const ws = workspace({
      "script.json": [
        { toolCalls: [{ name: "bash", arguments: { command: "echo one > t.txt" } }] },
        { toolCalls: [{ name: "bash", arguments: { command: "echo two >> t.txt" } }] },
        { text: "done on a tty" },
      ],
    });
    // `script` gives keel a pseudo-terminal, so stdin and stdout are TTYs
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(KEEL_BIN)} run --session tty1 --model scripted:script.json go`;
    const child = execa("script", ["-qec", cmd, "/dev/null"], { cwd: ws.root, env: ws.env, reject: false, timeout: 110_000 });
    // answered once the question shows: keys typed before it are dropped (no answer to a call not yet shown)
    let shown = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      if (!shown.includes("Allow?") && (shown += chunk.toString("utf8")).includes("Allow?")) child.stdin!.end("always\n");
    });
    const r = await child;
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Allow? [y]es / [n]o / [a]lways for this session");
    expect(r.stdout.match(/Allow\?/g)).toHaveLength(1);
    expect(r.stdout).toContain("done on a tty");
    expect(readFileSync(ws.path("t.txt"), "utf8")).toBe("one\ntwo\n");
    expect((await state(ws, "tty1")).sessionAllow).toEqual(["bash"]);
  });
});
