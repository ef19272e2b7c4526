import { cpSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

/** A claw-code `.claw-mcp.json` whose `servers` entry only declares resources (no `command`). */
const CLAW = fileURLToPath(new URL("../../fixtures/claw-mcp", import.meta.url));

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

describe("resource-only server entries (claw-code reference style)", () => {
  it("load their resources instead of being rejected", async () => {
    ws = makeWorkspace();
    cpSync(CLAW, ws.root, { recursive: true });
    const call = async (tool: string, input: object) =>
      (await runKeel(["--json", "call", tool, "--input", JSON.stringify(input)], { cwd: ws.root, env: ws.env })).json();
    const listed = await call("mcp_list_resources", {});
    expect(listed.ok).toBe(true);
    expect(listed.content).toContain("keel-local://handbook/onboarding (onboarding)");
    expect(listed.content).toContain("keel-local://handbook/motto (motto)");
    expect(await call("mcp_read_resource", { uri: "onboarding" })).toMatchObject({ ok: true, content: "Read the README first.\n" });
    expect(await call("mcp_read_resource", { uri: "keel-local://handbook/motto" })).toMatchObject({ ok: true, content: "Ship small, ship often." });
    const tools = (await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env })).json();
    expect(tools.diagnostics.filter((d: { source: string; severity: string }) => d.source === "mcp" && d.severity !== "info")).toEqual([]);
  });
});
