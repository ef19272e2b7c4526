import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer, type ChatRequestBody } from "../../helpers/openai-server.js";
import { refusesEmptyContent } from "../../../core/model/provider-quirks.js";
import { runKeel } from "../../helpers/run-cli.js";
import { sessionState } from "../../helpers/session-state.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Anthropic's OpenAI-compatible endpoint (and proxies in front of Claude: LiteLLM, Bedrock gateways) answers 400
// "messages.N: all messages must have non-empty content …" to a user or tool message whose content is "" — which
// OpenAI accepts. The server also checks every request as strictly as OpenAI does.
const server = useOpenAIServer({ strict: true });
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

function workspace() {
  const w = makeWorkspace({ "empty.txt": "" }, { git: true });
  w.writeUserConfig({ model: { name: "claude-sonnet-4-5", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY", maxRetries: 0 } });
  ws = w;
  return { root: w.root, env: { ...w.env, KEEL_TEST_KEY: "k" } };
}

/** The content of each tool message of a request. */
const toolContents = (body: ChatRequestBody) => body.messages.filter((m) => m.role === "tool").map((m) => m.content);

describe("empty message content, for endpoints that refuse it", () => {
  it("an empty tool result (read_file of an empty file) is refused once, then sent with a placeholder; the session keeps it empty", async () => {
    const { root, env } = workspace();
    server.push({ toolCalls: [{ name: "read_file", arguments: { path: "empty.txt" } }] }, { refuseEmptyContent: true, text: "It is empty." });
    const before = server.requests.length;
    const r = await runKeel(["--yes", "--json", "run", "--session", "s1", "read empty.txt"], { cwd: root, env });
    // old code: "" went back and the run failed with the 400 (reason error)
    expect(r.json(), r.stderr).toMatchObject({ reason: "answer", text: "It is empty." });
    const sent = server.requests.slice(before);
    expect(sent).toHaveLength(3);
    expect(toolContents(sent[1]!)).toEqual([""]);
    expect(toolContents(sent[2]!)).toEqual(["(empty)"]);
    expect(server.refused).toEqual([]);
    expect((await sessionState(root, "s1")).messages.find((m) => m.role === "tool")?.content).toBe("");
    // What is learned holds for the rest of the run: a resume asks a new client, which learns it again (one more 400).
    server.push({ refuseEmptyContent: true, text: "Still empty." });
    const again = await runKeel(["--yes", "--json", "run", "--resume", "s1", "and now?"], { cwd: root, env });
    expect(again.json(), again.stderr).toMatchObject({ reason: "answer", text: "Still empty." });
  });

  it("an endpoint that accepts empty content gets it as it is", async () => {
    const { root, env } = workspace();
    server.push({ toolCalls: [{ name: "read_file", arguments: { path: "empty.txt" } }] }, { text: "It is empty." });
    const before = server.requests.length;
    const r = await runKeel(["--yes", "--json", "run", "read empty.txt"], { cwd: root, env });
    expect(r.json(), r.stderr).toMatchObject({ reason: "answer" });
    const sent = server.requests.slice(before);
    expect(sent).toHaveLength(2);
    expect(toolContents(sent[1]!)).toEqual([""]);
  });

  it("is learned from each wording of that refusal, and from no other 400", () => {
    const refusal = (message: string, status = 400) => refusesEmptyContent({ status, error: { message } });
    expect(refusal("messages.3: all messages must have non-empty content except for the optional final assistant message")).toBe(true);
    expect(refusal("messages: text content blocks must be non-empty")).toBe(true);
    expect(refusal("messages: text content blocks must contain non-whitespace text")).toBe(true);
    expect(refusal("messages.52.content.0.tool_result: content cannot be empty if `is_error` is true")).toBe(true);
    expect(refusal("The content field in the Message object at messages.13 is empty. Add a ContentBlock object to the content field and try again.")).toBe(
      true,
    );
    expect(refusal("messages.3: all messages must have non-empty content", 500)).toBe(false);
    expect(refusal("Invalid assistant message: role='assistant' content=None tool_calls=None prefix=False")).toBe(false);
  });
});
