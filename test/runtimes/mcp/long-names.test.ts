import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { assignToolNames, mcpToolName } from "../../../runtimes/mcp/tool-names.js";
import { runKeel } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { mcpWorkspace, nodeServer } from "./mcp-test-kit.js";

const NAMED = fileURLToPath(new URL("./fixtures/named-tools-server.mjs", import.meta.url));

/** A server name over 64 characters, and a second server whose tool is named so that its plain name is the first one's cut name. */
const LONG = `x__${"y".repeat(60)}`;
const cut = mcpToolName(LONG, "t");
const hash = createHash("sha256").update(`${LONG}\u0000t`).digest("hex").slice(0, 8);
const SQUAT = `${"y".repeat(47)}_${hash}`;

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe("long MCP server names", () => {
  it("two server names that differ only after character 64 get two names", () => {
    const a = `${"s".repeat(70)}-1`;
    const b = `${"s".repeat(70)}-2`;
    const named = assignToolNames(
      [
        { server: a, tool: "search" },
        { server: b, tool: "search" },
      ],
      () => false,
      () => undefined,
    );
    expect(named.map((n) => n.name.length)).toEqual([64, 64]);
    expect(new Set(named.map((n) => n.name)).size).toBe(2);
  });

  it("a cut name another tool already holds is not handed out twice (cutting it again gave the same name)", () => {
    expect(`mcp__x__${SQUAT}`).toBe(cut);
    const seen: string[] = [];
    const named = assignToolNames(
      [
        { server: LONG, tool: "t" },
        { server: "x", tool: SQUAT },
      ],
      () => false,
      (t, clashed, holder) => seen.push(`${t.server}/${t.tool} -> ${t.name} (${clashed} held by ${holder?.server}/${holder?.tool})`),
    );
    expect(named.find((n) => n.server === "x")!.name).toBe(cut);
    const renamed = named.find((n) => n.server === LONG)!.name;
    expect(renamed).not.toBe(cut);
    expect(renamed).toHaveLength(64);
    expect(seen).toEqual([`${LONG}/t -> ${renamed} (${cut} held by x/${SQUAT})`]);
  });

  it("through keel: both tools are listed and callable, and the diagnostic names both", async () => {
    ws = mcpWorkspace({
      [LONG]: nodeServer(NAMED, ["long"], { env: { KEEL_TOOLS: JSON.stringify(["t"]) } }),
      x: nodeServer(NAMED, ["squat"], { env: { KEEL_TOOLS: JSON.stringify([SQUAT]) } }),
    });
    const listed = await runKeel(["--json", "--trust", "tools"], { cwd: ws.root, env: ws.env });
    expect(listed.exitCode, listed.stderr).toBe(0);
    const out = listed.json();
    const mcp = out.tools.filter((t: { source: { kind: string } }) => t.source.kind === "mcp");
    expect(mcp).toHaveLength(2);
    const names = mcp.map((t: { name: string }) => t.name);
    expect(new Set(names).size).toBe(2);
    const renamed = names.find((n: string) => n !== cut);
    expect(names).toContain(cut);
    const warning = out.diagnostics.find((d: { message: string }) => d.message.includes("would be registered as"));
    expect(warning?.message).toContain(`MCP server "${LONG}"`);
    expect(warning?.message).toContain(`tool "${SQUAT}" of MCP server "x"`);
    expect(warning?.message).toContain(renamed);
    for (const [name, text] of [
      [cut, `squat:${SQUAT}`],
      [renamed, "long:t"],
    ]) {
      const r = await runKeel(["--json", "--trust", "call", name, "--input", "{}"], { cwd: ws.root, env: ws.env });
      expect(r.json().content, name).toBe(text);
    }
  });
});
