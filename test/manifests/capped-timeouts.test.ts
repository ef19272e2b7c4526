import { describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace } from "../helpers/temp-workspace.js";

/** 2^31 - 1 ms: the longest delay Node's timers take (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

describe("a configured timeout keel caps is reported, not capped silently", () => {
  it("names the file, the field, the value and the cap, and keel keeps running", async () => {
    const ws = makeWorkspace({
      ".claw-workflows.json": {
        workflows: [
          {
            name: "long",
            steps: [
              { run: "true", timeoutMs: 3_600_000 },
              { run: "true", timeout_ms: 600_000 },
              { tool: "read_file", input: { path: "x" }, timeoutMs: 3_600_000 },
            ],
          },
        ],
      },
      ".mcp.json": { mcpServers: { slow: { command: "node", args: ["server.js"], startupTimeoutMs: 3_000_000_000, tool_timeout_ms: 60_000 } } },
      "keel.config.json": { mcp: { toolTimeoutMs: 2_500_000_000 } },
      ".claude/settings.json": {
        hooks: {
          PreToolUse: [
            {
              matcher: "bash",
              hooks: [
                { type: "command", command: "true", timeout: 3_000_000 },
                { type: "command", command: "true", timeout: 30 },
              ],
            },
          ],
        },
      },
    });
    try {
      const r = await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env });
      expect(r.exitCode, r.stderr).toBe(0);
      const out = r.json();
      expect(out.tools.map((t: { name: string }) => t.name)).toContain("read_file");
      const capped = out.diagnostics.filter((d: { message: string }) => /capped there|bash's maximum/.test(d.message));
      expect(capped).toHaveLength(4);
      expect(capped).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            severity: "warning",
            file: ws.path(".claude", "settings.json"),
            path: "hooks.PreToolUse[0].hooks[0].timeout",
            message: expect.stringMatching(/timeout is 3000000 s, .*2147483\.647 s/),
          }),
          expect.objectContaining({
            severity: "warning",
            file: ws.path(".mcp.json"),
            path: "mcpServers.slow.startupTimeoutMs",
            message: expect.stringContaining(`startupTimeoutMs is 3000000000 ms, more than the longest timeout keel can set (${MAX_TIMER_MS} ms`),
          }),
          expect.objectContaining({
            severity: "warning",
            file: ws.path(".claw-workflows.json"),
            path: "workflows[0].steps[0].timeoutMs",
            message: expect.stringContaining("timeoutMs is 3600000 ms, more than bash's maximum of 600000 ms"),
          }),
        ]),
      );
    } finally {
      ws.cleanup();
    }
  });
});
