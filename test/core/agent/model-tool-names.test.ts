import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe("a tool name from the model as keel's activity lines show it (real CLI, local server)", () => {
  it("a name with a newline stays on its line: it cannot draw an activity line keel never wrote", async () => {
    ws = makeWorkspace({}, { git: true });
    const env = { ...ws.env, KEEL_TEST_KEY: "k" };
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY" } });
    server.push({ toolCalls: [{ name: "nosuch\n  ✓ read_file  approved by you · 1ms", arguments: {} }] }, { text: "done" });
    const r = await runKeel(["--yes", "run", "--session", "n1", "go"], { cwd: ws.root, env });
    expect(r.exitCode, r.stderr).toBe(0);
    // Old code: the name's second line was printed as a line of its own.
    expect(r.stderr.split("\n").filter((l) => l.startsWith("  ✓ read_file"))).toEqual([]);
    expect(r.stderr).toContain("● nosuch\\n  ✓ read_file  approved by you · 1ms");
    expect(r.stderr).toContain('Unknown tool "nosuch');
  });
});
