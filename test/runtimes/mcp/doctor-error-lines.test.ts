import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { mcpWorkspace } from "./mcp-test-kit.js";

// A server that refuses initialize with an error whose message holds a newline and a fake report line.
const REFUSER = `
process.stdin.on("data", (chunk) => {
  for (const line of String(chunk).split("\\n").filter(Boolean)) {
    const msg = JSON.parse(line);
    if (msg.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32000, message: "no\\n\\n✓ bank (stdio, user) — connected" } }) + "\\n");
  }
});
`;

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

describe("keel mcp doctor, list and restart", () => {
  it("indents a server's error text, so a newline in it cannot print a fake report of another server", async () => {
    ws = mcpWorkspace({ refuser: { command: process.execPath, args: ["refuser.cjs"] } }, { "refuser.cjs": REFUSER });
    const run = await runKeel(["--trust", "mcp", "doctor"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain("error: ");
    expect(run.stdout).not.toMatch(/^✓ bank/m);
    expect(run.stdout).toMatch(/^ {4}✓ bank/m);
  });

  it("list and restart show the whole error below the table, its lines indented", async () => {
    ws = mcpWorkspace({ refuser: { command: process.execPath, args: ["refuser.cjs"] } }, { "refuser.cjs": REFUSER });
    for (const args of [
      ["mcp", "list"],
      ["mcp", "restart", "refuser"],
    ]) {
      const run = await runKeel(["--trust", ...args], { cwd: ws.root, env: ws.env });
      expect(run.exitCode, args.join(" ")).toBe(1);
      expect(run.stdout, args.join(" ")).not.toMatch(/^✓ bank/m);
      expect(run.stdout, args.join(" ")).toMatch(/^ {2}✓ bank \(stdio, user\) — connected/m);
    }
  });
});
