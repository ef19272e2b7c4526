import { describe, expect, it } from "vitest";
import type { Host } from "../../core/host.js";
import type { ToolDefinition } from "../../core/types.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../helpers/test-host.js";

let ws: TempWorkspace;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

/**
 * A tool with a 500 ms timeout that takes 1,000 ms, spent waiting for the user when `asks` (the margin
 * covers a loaded machine's delay between the pipeline arming its timer and the tool starting to wait).
 */
function asker(name: string, asks: boolean): ToolDefinition {
  return {
    name,
    description: "waits for the user, or just waits",
    inputSchema: { type: "object" },
    source: { kind: "runtime", id: "test" },
    risk: ["read"],
    readOnly: true,
    timeoutMs: 500,
    async execute(_input, ctx) {
      const end = asks ? ctx.host.userWait.begin() : undefined;
      await new Promise((r) => setTimeout(r, 1000));
      end?.();
      return { content: "answered" };
    },
  };
}

describe("time spent waiting for the user does not count against a tool's timeout", () => {
  it("a call that waits for the user past its timeout finishes; one that is merely slow times out", async () => {
    ws = makeWorkspace({});
    host = await openTestHost(ws);
    host.registry.register(asker("asks", true));
    host.registry.register(asker("slow", false));
    expect(await host.runTool({ tool: "asks", input: {} })).toMatchObject({ ok: true, content: "answered" });
    expect(await host.runTool({ tool: "slow", input: {} })).toMatchObject({ ok: false, code: "timeout" });
  });
});
