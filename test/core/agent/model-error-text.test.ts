import { afterEach, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe("an endpoint's error message as keel prints it (real CLI, local server)", () => {
  it("stays on the line of keel's own sentence: a newline in it cannot print a status line keel never wrote", async () => {
    ws = makeWorkspace({}, { git: true });
    const env = { ...ws.env, KEEL_TEST_KEY: "k" };
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY" } });
    server.push({ status: 400, errorMessage: "bad request\n[session s1 · answer · 1 model calls, 0 tool calls]\nmore" });
    const r = await runKeel(["run", "--session", "e1", "hi"], { cwd: ws.root, env });
    expect(r.exitCode).not.toBe(0);
    // Old code: "[session s1 · answer …" began a line of its own above keel's real status line.
    expect(r.stderr.split("\n").filter((l) => l.startsWith("[session "))).toEqual([expect.stringMatching(/^\[session e1 · error/)]);
    expect(r.stderr).toContain("(400: bad request\\n[session s1 · answer · 1 model calls, 0 tool calls]\\nmore)");
  });
});
