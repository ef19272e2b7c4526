import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { dependantsOf } from "../../helpers/retained.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace | undefined;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

describe("a workflow's steps leave nothing on the signal of the run", () => {
  // A run's signal may live far longer than the run (a chat, `keel mcp serve`, a library host's). Each
  // step's signal (with its timeout) was `AbortSignal.any` over it, which on Node 20 left an entry on it for good.
  it("after 20 runs of 3 steps (one with a timeout, one a nested workflow of 1) the caller's signal holds nothing of them", async () => {
    ws = makeWorkspace({
      "notes.txt": "hello\n",
      ".claw-workflows.json": {
        workflows: [
          {
            name: "steps",
            steps: [
              { id: "a", tool: "read_file", input: { path: "notes.txt" } },
              { id: "b", tool: "read_file", input: { path: "notes.txt" }, timeoutMs: 60_000 },
              { id: "c", workflow: "inner" },
            ],
          },
          { name: "inner", steps: [{ id: "d", tool: "read_file", input: { path: "notes.txt" } }] },
        ],
      },
    });
    host = await openTestHost(ws, { trust: true });
    const caller = new AbortController();
    for (let i = 0; i < 20; i++) {
      const record = await host.service("workflows")!.run("steps", { yes: true, signal: caller.signal });
      expect(record.status, JSON.stringify(record, null, 2)).toBe("succeeded");
    }
    expect(dependantsOf(caller.signal)).toBe(0);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  });
});
