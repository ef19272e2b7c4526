import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** The tool-call ids of the assistant messages, and the ids tool results answer, in one request. */
function idsOf(request: OpenAIServer["requests"][number]): { calls: string[]; answers: string[] } {
  return {
    calls: request.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)),
    answers: request.messages.flatMap((m) => (m.role === "tool" ? [m.tool_call_id!] : [])),
  };
}

describe("tool-call ids from the model are made unique per session (real openai client, local server)", () => {
  it("a server that sends one constant id, and repeats an id within a response: every call keeps its own id and result", async () => {
    ws = makeWorkspace({ "a.txt": "AAA", "b.txt": "BBB", "c.txt": "CCC" }, { git: true });
    // As llama.cpp does (one id for every call of every completion), and as some servers do within one response.
    server.push(
      { toolCalls: [{ id: "same", name: "read_file", arguments: { path: "a.txt" } }] },
      {
        toolCalls: [
          { id: "same", name: "read_file", arguments: { path: "b.txt" } },
          { id: "same", name: "read_file", arguments: { path: "c.txt" } },
        ],
      },
      { text: "done" },
    );
    const before = server.requests.length;
    const env = { ...ws.env, KEEL_TEST_KEY: "k" };
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY" } });
    const r = await runKeel(["--yes", "--json", "run", "--session", "ids1", "read them"], { cwd: ws.root, env });
    expect(r.exitCode, r.stderr).toBe(0);
    const last = server.requests.at(-1)!;
    expect(server.requests.length - before).toBe(3);
    const { calls, answers } = idsOf(last);
    expect(calls).toEqual(["same", "same-2", "same-3"]);
    expect(answers).toEqual(calls);
    // each result is paired with its own call
    const results = last.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content]);
    expect(results).toEqual([
      ["same", "AAA"],
      ["same-2", "BBB"],
      ["same-3", "CCC"],
    ]);
    // the session's record holds the ids keel used, so a resume sends the same conversation
    const state = await sessionState(ws.root, "ids1");
    const recorded = state.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : []));
    expect(recorded).toEqual(["same", "same-2", "same-3"]);
  });

  it("two sessions whose calls have the same id (or none) keep separate artifacts: none overwrites another", async () => {
    ws = makeWorkspace({}, { git: true });
    const env = { ...ws.env, KEEL_TEST_KEY: "k" };
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY" } });
    const big = (letter: string) => ({ command: `head -c 40000 /dev/zero | tr '\\0' ${letter}` });
    const artifactOf = (content: string) => /Full output saved to (\S+?);/.exec(content)?.[1];
    const seen: string[] = [];
    for (const [session, letter, id] of [
      ["n1", "a", ""],
      ["n2", "b", ""],
      ["c1", "c", "same"],
      ["c2", "d", "same"],
    ] as const) {
      server.push({ toolCalls: [{ id, name: "bash", arguments: big(letter) }] }, { text: "done" });
      const r = await runKeel(["--yes", "run", "--session", session, "go"], { cwd: ws.root, env });
      expect(r.exitCode, r.stderr).toBe(0);
      const result = server.requests.at(-1)!.messages.find((m) => m.role === "tool")!;
      const artifact = artifactOf(String(result.content));
      expect(artifact, String(result.content).slice(0, 300)).toBeDefined();
      seen.push(artifact!);
    }
    expect(new Set(seen).size).toBe(4);
    // each artifact still holds its own call's output
    seen.forEach((artifact, i) => {
      const text = readFileSync(ws!.path(artifact), "utf8");
      expect(new RegExp(`^${"abcd"[i]}{40000}\\s*\\[exit code 0\\]\\s*$`).test(text), `${artifact} holds the output of call ${i}`).toBe(true);
    });
  });
});
