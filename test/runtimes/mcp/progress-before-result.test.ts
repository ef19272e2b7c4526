import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { readEvents } from "../../../core/events.js";
import { runKeel } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { mcpWorkspace, nodeServer } from "./mcp-test-kit.js";

const RACE = fileURLToPath(new URL("./fixtures/progress-race-server.mjs", import.meta.url));

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

describe("progress sent right before the result (same chunk)", () => {
  it("is recorded, and the tool keeps getting a progress token on later calls", async () => {
    ws = mcpWorkspace({ race: nodeServer(RACE) });
    const call = async () => (await runKeel(["--trust", "--yes", "--json", "call", "mcp__race__quick"], { cwd: ws!.root, env: ws!.env })).json();
    for (let i = 0; i < 2; i++) expect(await call()).toMatchObject({ ok: true, content: "done" });
    const progress = readEvents(ws.path(".keel", "events.jsonl")).filter((e) => e.type === "mcp_progress");
    expect(progress).toHaveLength(2);
    expect(progress[0]).toMatchObject({ server: "race", tool: "quick", progress: 1, total: 2, message: "halfway" });
  });
});
