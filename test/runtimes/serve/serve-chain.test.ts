import { afterEach, describe, expect, it } from "vitest";
import { KEEL_BIN } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { execa } from "execa";
import { waitFor } from "../mcp/mcp-test-kit.js";
import { readEvents, TALK_PLUGIN } from "./serve-test-kit.js";

const made: TempWorkspace[] = [];
afterEach(() => {
  for (const ws of made.splice(0)) ws.cleanup();
});

describe("keel A serves, keel B consumes A through .mcp.json", () => {
  it("B calls a plugin virtual tool of A: through B's pipeline, then A's (origin mcp-serve); A's deny rule still holds", async () => {
    const a = makeWorkspace({
      "plugins/talk/plugin.json": {
        ...TALK_PLUGIN,
        virtual_tools: [...TALK_PLUGIN.virtual_tools, { name: "secret", description: "Denied in A", response_template: "leaked" }],
      },
      "keel.config.json": { permissions: { deny: ["secret"] } },
    });
    made.push(a);
    const b = makeWorkspace({
      ".mcp.json": {
        mcpServers: { a: { command: process.execPath, args: [KEEL_BIN, "--cwd", a.root, "mcp", "serve"], env: { KEEL_HOME: a.keelHome } } },
      },
    });
    made.push(b);
    const call = (tool: string, input: object) =>
      execa(process.execPath, [KEEL_BIN, "--cwd", b.root, "--trust", "--json", "call", tool, "--input", JSON.stringify(input)], { env: b.env, reject: false });

    const said = await call("mcp__a__say", { topic: "chain" });
    expect(said.exitCode, said.stderr).toBe(0);
    const obs = JSON.parse(said.stdout);
    expect(obs).toMatchObject({ ok: true, code: "ok", content: "Plugin says chain", metadata: { server_name: "a", source: { kind: "mcp", id: "a" } } });
    const inA = await waitFor(() => readEvents(a).find((e) => e.type === "tool_intent" && e.tool === "say"));
    expect(inA).toMatchObject({ origin: "mcp-serve" });
    expect(readEvents(b).find((e) => e.type === "tool_intent" && e.tool === "mcp__a__say")).toMatchObject({ origin: "cli" });

    const secret = await call("mcp__a__secret", {});
    expect(secret.exitCode).toBe(1);
    const refused = JSON.parse(secret.stdout);
    expect(refused.ok).toBe(false);
    expect(refused.content).toMatch(/Permission denied for secret/);
    expect(refused.content).not.toContain("leaked");
  });
});
