import { afterEach, describe, expect, it } from "vitest";
import { idsOf, modelWorkspace } from "../../helpers/call-ids.js";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";

// Anthropic's OpenAI-compatible endpoint (and proxies in front of Claude) answer 400 "messages.1.content.1.tool_use.id:
// String should match pattern '^[a-zA-Z0-9_-]+$'" to Kimi's ids (`functions.read_file:0`): a session that ran on Kimi
// and is resumed against such an endpoint must not be stuck on that 400.
const server = useOpenAIServer({ strict: true });
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const KIMI_ID = "functions.read_file:0";

function workspace() {
  const made = modelWorkspace("kimi-k2", server.baseUrl);
  ws = made.ws;
  return made;
}

describe("tool-call ids for servers that accept only [a-zA-Z0-9_-] (Anthropic's OpenAI-compatible endpoint)", () => {
  it("a Kimi session resumed there is refused once, then sent with call_<hash> ids, call and result alike, the same on every resume", async () => {
    const { root, env } = workspace();
    server.push({ toolCalls: [{ id: KIMI_ID, name: "read_file", arguments: { path: "notes.txt" } }] }, { text: "They say hello." });
    let before = server.requests.length;
    const first = await runKeel(["--yes", "--json", "run", "--session", "k1", "read notes"], { cwd: root, env });
    expect(first.json(), first.stderr).toMatchObject({ reason: "answer" });
    // Kimi's own server gets its id back as it gave it (its template may rely on that form).
    expect(idsOf(server.requests[before + 1]!).calls).toEqual([KIMI_ID]);

    server.push({ requirePatternCallIds: true, text: "Still hello." });
    before = server.requests.length;
    const resumed = await runKeel(["--json", "run", "--resume", "k1", "and now?"], { cwd: root, env });
    // Old code: the 400 ended the run, and every later resume the same way.
    expect(resumed.json(), resumed.stderr).toMatchObject({ reason: "answer", text: "Still hello." });
    const sent = server.requests.slice(before);
    expect(sent).toHaveLength(2);
    expect(idsOf(sent[0]!).calls).toEqual([KIMI_ID]);
    const mapped = idsOf(sent[1]!);
    expect(mapped.calls).toEqual([expect.stringMatching(/^call_[0-9a-f]{32}$/)]);
    expect(mapped.results).toEqual(mapped.calls);

    server.push({ requirePatternCallIds: true, text: "Hello again." });
    before = server.requests.length;
    const again = await runKeel(["--json", "run", "--resume", "k1", "once more"], { cwd: root, env });
    expect(again.json(), again.stderr).toMatchObject({ reason: "answer", text: "Hello again." });
    expect(idsOf(server.requests.at(-1)!).calls).toEqual(mapped.calls);
    expect(server.requests.length - before).toBe(2);
  });
});
