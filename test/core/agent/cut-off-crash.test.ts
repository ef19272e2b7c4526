import { execa } from "execa";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer, type ServerReply } from "../../helpers/openai-server.js";
import { KEEL_BIN, runKeel } from "../../helpers/run-cli.js";
import { sessionState, tearLogAfterResponse } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** A workspace whose user config points at the local server with an output limit of 300 tokens (no retries). */
function workspace(): { ws: TempWorkspace; env: NodeJS.ProcessEnv } {
  const w = makeWorkspace({}, { git: true });
  w.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY", maxRetries: 0, maxOutputTokens: 300 } });
  ws = w;
  return { ws: w, env: { ...w.env, KEEL_TEST_KEY: "k" } };
}

/** A response cut by the output limit: a whole bash call (`command`), then a write_file call cut off in its arguments. */
const cutResponse = (command: string): ServerReply => ({
  toolCalls: [
    { id: "first", name: "bash", arguments: { command } },
    { id: "cut", name: "write_file", arguments: '{"path":"out.txt","content":"a long file, cut o' },
  ],
  finishReason: "length",
});

const CUT_ANSWER = "Your response reached the output limit (300 tokens) while writing the arguments of write_file: they are cut off";

/** The tool results of session `id`, by call id. */
async function results(root: string, id: string): Promise<Record<string, string>> {
  const state = await sessionState(root, id);
  return Object.fromEntries(state.messages.flatMap((m) => (m.role === "tool" ? [[m.toolCallId, m.content]] : [])));
}

describe("a response cut by the output limit, and keel killed before its calls are answered", () => {
  it("killed (SIGKILL) while an earlier call of it runs: on resume the cut-off call is answered as cut off, not 'outcome unknown'", async () => {
    const { ws, env } = workspace();
    server.push(cutResponse("echo ran >> count.txt; sleep 120"));
    const child = execa("node", [KEEL_BIN, "run", "--yes", "--session", "k1", "write it"], { cwd: ws.root, env, reject: false, stdin: "ignore" });
    for (let i = 0; i < 1200 && !existsSync(ws.path("count.txt")); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(ws.path("count.txt"))).toBe(true);
    child.kill("SIGKILL");
    await child;
    server.push({ text: "I will write it in parts." });
    const r = await runKeel(["--yes", "run", "--resume", "k1"], { cwd: ws.root, env });
    expect(r.exitCode, r.stderr).toBe(0);
    const got = await results(ws.root, "k1");
    expect(got["first"]).toMatch(
      /^Error \(execution_failed\): Outcome unknown: keel stopped \(a crash, a kill, or its event log could not be written\) during this call; it was running/,
    );
    // Old code: "Outcome unknown: … it may not have started": a call keel never runs, and nothing about the limit.
    expect(got["cut"]).toContain(CUT_ANSWER);
    expect(existsSync(ws.path("out.txt"))).toBe(false);
  });

  it("the log ends right after the response (its checkpoint entry torn off): the limit is kept with the message", async () => {
    const { ws, env } = workspace();
    // the first call asks (no --yes): the turn pauses, the log holds the response and then the checkpoint entry
    server.push(cutResponse("echo ran >> ran.txt"));
    const first = await runKeel(["run", "--session", "t1", "write it"], { cwd: ws.root, env });
    expect(first.stderr).toContain("keel sessions approve t1");
    // a crash mid-write: the log ends after the response, the next line torn
    tearLogAfterResponse(ws.path(".keel", "sessions", "t1", "events.jsonl"));
    server.push({ text: "I will write it in parts." });
    const r = await runKeel(["--yes", "run", "--resume", "t1"], { cwd: ws.root, env });
    expect(r.exitCode, r.stderr).toBe(0);
    const got = await results(ws.root, "t1");
    // it waited for approval, so it has no record of starting: keel knows it never ran
    expect(got["first"]).toMatch(/Not run: .*before this call started/);
    // Old code: "Outcome unknown" (and with the limit kept only in the lost checkpoint entry: "not valid JSON").
    expect(got["cut"]).toContain(CUT_ANSWER);
    expect(existsSync(ws.path("ran.txt"))).toBe(false);
    expect(existsSync(ws.path("out.txt"))).toBe(false);
  });

  it("a session written before the limit was kept with the message still loads; its cut call is answered 'not valid JSON', never run", async () => {
    const { ws, env } = workspace();
    server.push(cutResponse("echo ran >> ran.txt"));
    await runKeel(["run", "--session", "o1", "write it"], { cwd: ws.root, env });
    const file = ws.path(".keel", "sessions", "o1", "events.jsonl");
    const lines = readFileSync(file, "utf8").split("\n");
    const assistant = lines.findIndex((l) => l.includes('"type":"session_message"') && l.includes('"role":"assistant"'));
    expect(lines[assistant]).toContain('"cutOff":300');
    writeFileSync(file, lines.slice(0, assistant).join("\n") + "\n" + lines[assistant]!.replace(',"cutOff":300', "") + "\n");
    server.push({ text: "I will write it in parts." });
    const r = await runKeel(["--yes", "run", "--resume", "o1"], { cwd: ws.root, env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await results(ws.root, "o1"))["cut"]).toMatch(
      /^Error \(schema_invalid\): The arguments of write_file are not valid JSON \(.*\)\. Send a JSON object\./,
    );
    expect(existsSync(ws.path("out.txt"))).toBe(false);
  });
});
