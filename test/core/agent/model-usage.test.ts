import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe("token usage a server reports (real openai client, local server)", () => {
  for (const stream of [true, false])
    it(`a negative or non-numeric usage never lowers what agent.budgets.maxTokens counts (stream: ${stream})`, async () => {
      ws = makeWorkspace({ "a.txt": "AAA" }, { git: true });
      const env = { ...ws.env, KEEL_TEST_KEY: "k" };
      ws.writeUserConfig({
        model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY", stream },
        agent: { budgets: { maxTokens: 20000 } },
      });
      const read = { name: "read_file", arguments: { path: "a.txt" } };
      // A hostile endpoint answers with a usage that would cancel out everything after it.
      server.push(
        { toolCalls: [read], usage: { prompt_tokens: -1_000_000_000, completion_tokens: 5 } },
        { toolCalls: [read], usage: { prompt_tokens: "5000" as never, completion_tokens: 5 } },
        { toolCalls: [read], usage: { prompt_tokens: 5000, completion_tokens: 5 } },
        { toolCalls: [read], usage: { prompt_tokens: 5000, completion_tokens: 5 } },
      ); // then the server answers with text
      const r = await runKeel(["--yes", "--json", "run", "--session", `u${String(stream)}`, "read it"], { cwd: ws.root, env });
      const out = JSON.parse(r.stdout) as { reason: string; usage: { modelCalls: number; inputTokens: number; outputTokens: number } };
      // Old code: inputTokens went to about -1e9 (then "5000" was appended as text), and the run answered "done" past the budget.
      expect(out.usage.inputTokens).toBeGreaterThan(0);
      expect(out.usage.outputTokens).toBeGreaterThan(0);
      expect(out.reason).toBe("budget");
      // keel's estimate (several thousand tokens: the tool menu) stands in for the two it cannot count
      expect(out.usage.inputTokens).toBeGreaterThanOrEqual(20000);
      expect(out.usage.modelCalls).toBe(4);
    });
});
