import { afterEach, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { startOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace | undefined;
let host: Host | undefined;
let server: OpenAIServer | undefined;
afterEach(async () => {
  await host?.close();
  await server?.close();
  ws?.cleanup();
});

describe("prompt steps with a configured model", () => {
  it("run a model turn through the agent service; later steps use its answer", async () => {
    server = await startOpenAIServer([{ text: "LGTM: 2 files look fine" }]);
    ws = makeWorkspace({
      "keel.config.json": { model: { name: "local-model", baseUrl: server.baseUrl, contextWindow: 64000 } },
      ".claw-workflows.json": {
        workflows: [
          {
            name: "ask",
            steps: [
              { id: "review", prompt: "Review {path} briefly." },
              { id: "echo", tool: "write_file", input: { path: "verdict.txt", content: "{steps.review.content}" } },
            ],
          },
        ],
      },
    });
    host = await openTestHost(ws, { trust: true, env: { ...ws.env, OPENAI_API_KEY: "test-key" } });
    const record = await host.service("workflows")!.run("ask", { args: { path: "src/" }, yes: true });
    expect(record.status, JSON.stringify(record, null, 2)).toBe("succeeded");
    expect(record.steps[0]).toMatchObject({ kind: "prompt", status: "succeeded", rendered: "Review src/ briefly." });
    expect(ws.read("verdict.txt")).toBe("LGTM: 2 files look fine");
    const userText = JSON.stringify(server.requests[0]!.messages);
    expect(userText).toContain("Review src/ briefly.");
  });
});
