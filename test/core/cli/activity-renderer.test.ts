import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { ActivityRenderer, argumentSummary, duration } from "../../../core/cli/activity-renderer.js";
import { useColor } from "../../../core/cli/palette.js";
import { ThinkingIndicator } from "../../../core/cli/thinking-indicator.js";
import type { KeelEvent } from "../../../core/index.js";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

/** A stream that keeps what is written to it (a terminal when `tty`). */
function sink(tty = false): Writable & { text: string; isTTY: boolean } {
  const out = Object.assign(
    new Writable({
      write(chunk, _enc, done) {
        out.text += String(chunk);
        done();
      },
    }),
    { text: "", isTTY: tty },
  );
  return out;
}

/** The events of one call of `tool` as a session records them, ending with its result message. */
function callEvents(tool: string, args: object, result: { ok: boolean; code: string; content: string; artifact?: string; durationMs: number }): KeelEvent[] {
  const ts = 1;
  const callId = `c-${tool}`;
  return [
    {
      ts,
      type: "session_message",
      sessionId: "s",
      message: { role: "assistant", content: "", toolCalls: [{ id: callId, name: tool, arguments: JSON.stringify(args) }] },
    },
    { ts, type: "tool_intent", callId, tool, origin: "agent", sessionId: "s" },
    {
      ts,
      type: "tool_observation",
      callId,
      tool,
      ok: result.ok,
      phase: result.ok ? "done" : "execute",
      code: result.code as never,
      durationMs: result.durationMs,
    },
    {
      ts,
      type: "session_message",
      sessionId: "s",
      message: { role: "tool", toolCallId: callId, name: tool, content: result.content, ...(result.artifact ? { artifact: result.artifact } : {}) },
    },
  ] as KeelEvent[];
}

describe("the tool-activity renderer", () => {
  it("draws a call as its name and argument summary, then ✓ with the first line of the result, the lines folded, the artifact path and the duration", () => {
    const out = sink();
    const r = new ActivityRenderer(out, { color: false, width: 100 });
    const long = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n");
    for (const e of callEvents(
      "bash",
      { command: "seq 1 40" },
      { ok: true, code: "ok", content: long, artifact: ".keel/sessions/s/artifacts/c-bash.txt", durationMs: 1234 },
    ))
      r.event(e);
    expect(out.text).toBe("● bash  seq 1 40\n  ✓ line 1 (+39 lines) · 1.2s · full output: .keel/sessions/s/artifacts/c-bash.txt\n");
  });

  it("draws a failure with ✗ and its code, cuts long lines to the width, and makes tool text terminal-safe", () => {
    const out = sink();
    const r = new ActivityRenderer(out, { color: false, width: 60 });
    const content = `Error (execution_failed): ${"x".repeat(200)}\u001b[2J`;
    for (const e of callEvents("read_file", { path: "a.txt", offset: 3 }, { ok: false, code: "execution_failed", content, durationMs: 80 })) r.event(e);
    const [head, result] = out.text.trimEnd().split("\n");
    expect(head).toBe("● read_file  path=a.txt offset=3");
    expect(result).toMatch(/^ {2}✗ execution_failed: x+… · 80ms$/);
    expect(result!.length).toBeLessThanOrEqual(100);
    expect(out.text).not.toContain("\u001b");
  });

  it("colours only when asked: NO_COLOR and a non-terminal stream turn colours off", () => {
    const events = callEvents("glob", { pattern: "*.ts" }, { ok: true, code: "ok", content: "a.ts", durationMs: 5 });
    const coloured = sink(true);
    const r = new ActivityRenderer(coloured, { color: useColor(coloured, {}) });
    for (const e of events) r.event(e);
    expect(coloured.text).toContain("\u001b[");
    const plain = sink(true);
    const p = new ActivityRenderer(plain, { color: useColor(plain, { NO_COLOR: "1" }) });
    for (const e of events) p.event(e);
    expect(plain.text).not.toContain("\u001b");
    expect(plain.text).toBe(coloured.text.replace(/\u001b\[\d+m/g, ""));
    expect(useColor(sink(false), {})).toBe(false);
    expect(useColor(sink(true), { TERM: "dumb" })).toBe(false);
  });

  it("draws a model retry, and a response cut by the output limit or stopped by the content filter, as marked lines (others: none)", () => {
    const out = sink();
    const r = new ActivityRenderer(out, { color: false, width: 200 });
    const base = { ts: 1, sessionId: "s", callIndex: 0 };
    r.event({ ...base, type: "model_retry", attempt: 1, maxRetries: 2, delayMs: 1500, message: "The provider failed (503: busy).\nmore" } as KeelEvent);
    for (const finishReason of ["stop", "tool_calls", "length", "content_filter", undefined])
      r.event({ ...base, type: "model_response", durationMs: 1, finishReason, toolCalls: [], textChars: 0 } as KeelEvent);
    expect(out.text.split("\n").filter(Boolean)).toEqual([
      "↻ model call failed, retrying in 1.5s (1 of 2): The provider failed (503: busy). (+1 lines)",
      "◆ the model's response reached its output limit (model.maxOutputTokens) and was cut off",
      "◆ the provider's content filter stopped the model's response",
    ]);
  });

  it("a retry line leaves out the endpoint, so the status and the provider's words fit an 80-column terminal", () => {
    const out = sink();
    const r = new ActivityRenderer(out, { color: false, width: 80 });
    const base = { ts: 1, sessionId: "s", callIndex: 0, attempt: 1, maxRetries: 2, delayMs: 1500 };
    for (const message of [
      "The provider at https://openrouter.ai/api/v1 failed (503: Service Unavailable). Retry later.",
      "Cannot reach the model at http://127.0.0.1:11434/v1 (Connection error.). Is the server running?",
      "The model endpoint (OpenAI) stopped sending: nothing came for 300 s",
    ])
      r.event({ ...base, type: "model_retry", message } as KeelEvent);
    // Old code: "The provider at https://openrout…", "Cannot reach the model at http:/…": no status, no reason.
    expect(out.text.split("\n").filter(Boolean)).toEqual([
      "↻ model call failed, retrying in 1.5s (1 of 2): The provider failed (503: Servi…",
      "↻ model call failed, retrying in 1.5s (1 of 2): Cannot reach the model (Connect…",
      "↻ model call failed, retrying in 1.5s (1 of 2): The model endpoint stopped send…",
    ]);
  });

  it("draws drained keel send messages, with a warning when a command keel ran for a tool queued some", () => {
    const out = sink();
    const r = new ActivityRenderer(out, { color: false, width: 120 });
    r.event({ ts: 1, type: "queue_drained", sessionId: "s", count: 2 });
    r.event({ ts: 1, type: "queue_drained", sessionId: "s", count: 2, fromTool: 1 });
    const [yours, tools] = out.text.trimEnd().split("\n");
    expect(yours).toContain("2 queued message(s) added to the conversation (keel send)");
    expect(tools).toContain("2 queued message(s) added to the conversation, 1 of them queued by a command keel ran for a tool, not by you");
  });

  it("summarizes arguments on one line and formats durations", () => {
    expect(argumentSummary('{"command":"echo a\\necho b"}')).toBe("echo a ⏎ echo b");
    expect(argumentSummary('{"path":"a","limit":5,"flags":["x"]}')).toBe('path=a limit=5 flags=["x"]');
    expect(argumentSummary("not json")).toBe("not json");
    expect(duration(420)).toBe("420ms");
    expect(duration(3100)).toBe("3.1s");
    expect(duration(125_000)).toBe("2m05s");
  });
});

describe("the thinking indicator", () => {
  it("writes plain text without colours and erases it with spaces; with colours a spinner erased by a clear-line", () => {
    const plain = sink(true);
    const off = new ThinkingIndicator(plain, false);
    off.show();
    off.show();
    expect(plain.text).toBe("thinking…");
    off.hide();
    off.hide();
    expect(plain.text).toMatch(/^thinking…\r {9,}\r$/);
    expect(plain.text).not.toContain("\u001b");
    const tty = sink(true);
    const on = new ThinkingIndicator(tty, true);
    on.show();
    expect(tty.text).toMatch(/⠋ thinking…/);
    on.hide();
    expect(tty.text.endsWith("\r\u001b[2K")).toBe(true);
  });
});

describe("keel run shows tool activity on stderr", () => {
  it("draws each call, blocks and guidance on stderr, keeps stdout the answer, and puts the status line on its own line; --json is unchanged", async () => {
    ws = makeWorkspace(
      {
        "notes.txt": "first line of notes\nsecond\n",
        ".claw-plugin/plugin.json": { name: "guard", blocked_tools: ["write_file"], tool_hooks: { read_file: { beforeTool: "Read only what you need." } } },
      },
      { git: true },
    );
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    server.push(
      { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "out.txt", content: "x" } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "seq 1 30000" } }] },
      { text: "I read the notes." },
    );
    const r = await runKeel(["--yes", "run", "read the notes"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("I read the notes.");
    const lines = r.stderr.split("\n");
    expect(lines).toContain("● read_file  notes.txt");
    expect(lines).toContain("  ℹ guidance for read_file: Before tool: guard: Read only what you need.");
    expect(r.stderr).toMatch(/● write_file {2}path=out.txt content=x\n {2}⛔ blocked by guard\n {2}✗ tool_blocked: .+ · \d+ms\n/);
    expect(r.stderr).toMatch(/● bash {2}seq 1 30000\n {2}✔ approved \(--yes\)\n {2}✓ .*\(\+\d+ lines\) · [\d.]+m?s · full output: \.keel\/.+\n/);
    expect(lines.at(-1)).toMatch(/^\[session \S+ · answer · 4 model calls, 3 tool calls\]$/);
    expect(r.stderr).not.toContain("\u001b");
    // stderr is not a terminal: no "thinking…" indicator
    expect(r.stderr).not.toContain("thinking");
    expect(ws.exists("out.txt")).toBe(false);

    server.push({ toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] }, { text: "again" });
    const json = await runKeel(["--json", "run", "read the notes"], { cwd: ws.root, env: ws.env });
    expect(json.json()).toMatchObject({ ok: true, reason: "answer", text: "again" });
    expect(json.stderr).not.toContain("● read_file");
  });

  it("draws a sub-agent's calls under its delegate_agent call, indented and named by the sub-agent", async () => {
    ws = makeWorkspace({ "notes.txt": "the notes\n" }, { git: true });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    server.push(
      { toolCalls: [{ name: "delegate_agent", arguments: { prompt: "read the notes" } }] },
      { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
      { text: "The notes say: the notes." },
      { text: "Done." },
    );
    const r = await runKeel(["--yes", "run", "delegate the reading"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("Done.");
    expect(r.stderr).toMatch(
      /^● delegate_agent {2}read the notes\n(.*\n)*? {2}● sub-agent › read_file {2}notes\.txt\n {4}✓ the notes · \d+ms\n(.*\n)*? {2}✓ Sub-agent session \S+ finished/m,
    );
  });
});
