import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** A 100 000-character tool name (a model, or a hostile server's output steering it, can send one). */
const HUGE = "x".repeat(100_000);

describe("an unknown tool name of any length gets a bounded message, compared with nothing", () => {
  it("keel call: the name is cut to 128 characters with its length, and no tool is suggested", async () => {
    ws = makeWorkspace({});
    const r = await runKeel(["--json", "call", HUGE], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(1);
    const out = r.json<{ code: string; content: string }>();
    expect(out.code).toBe("unknown_tool");
    expect(out.content).toMatch(/^Unknown tool "x{128}…" \(100000 characters\): no tool has a name longer than 128 characters\. Run `keel tools`/);
    expect(out.content.length).toBeLessThan(400);
  });

  it("the agent: the model's call of a 100 KB name is answered with the same bounded message", async () => {
    ws = makeWorkspace({});
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    const before = server.requests.length;
    server.push({ toolCalls: [{ id: "h1", name: HUGE, arguments: {} }] }, { text: "done" });
    const r = await runKeel(["--json", "run", "go"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const answer = server.requests[before + 1]!.messages.find((m) => m.role === "tool" && m.tool_call_id === "h1")!;
    expect(String(answer.content)).toContain("(100000 characters): no tool has a name longer than 128 characters");
    expect(String(answer.content).length).toBeLessThan(500);
  });
});
