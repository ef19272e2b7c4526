import { appendFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { executedWords } from "../../../core/executed-words.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const ECHO_SERVER = fileURLToPath(new URL("../../runtimes/mcp/fixtures/protocol-server.mjs", import.meta.url));

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const keel = (...args: string[]) => runKeel(["--json", "--yes", ...args], { cwd: ws!.root, env: ws!.env });

describe("keel trust pins the env file node reads before the script (its NODE_OPTIONS loads code)", () => {
  it("names the env file of --env-file and --env-file-if-exists, in both spellings, and uv run's", () => {
    const words = (line: string) => executedWords(line.split(" "));
    expect(words("node --env-file=.env server.js")).toEqual([".env", "server.js"]);
    expect(words("node --env-file .env server.js")).toEqual([".env", "server.js"]);
    expect(words("node --env-file-if-exists=.env.local server.js")).toEqual([".env.local", "server.js"]);
    expect(words("NODE_OPTIONS=--env-file=.env node server.js")).toEqual([".env", "server.js"]);
    expect(words("uv run --env-file .env python tool.py")).toEqual([".env", "python", "tool.py"]);
  });

  it("a server started with node --env-file waits for a review once the env file gains a NODE_OPTIONS --require", async () => {
    ws = makeWorkspace(
      {
        "server.mjs": `import ${JSON.stringify(pathToFileURL(ECHO_SERVER).href)};\n`,
        ".env": "LOG_LEVEL=info\n",
        "evil.cjs": `require("node:fs").writeFileSync(${JSON.stringify("evil-ran")}, "x");\n`,
        ".mcp.json": { mcpServers: { a: { command: process.execPath, args: ["--env-file=.env", "server.mjs"] } } },
      },
      { git: true },
    );
    const trusted = await keel("trust");
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    expect(trusted.json().approved).toEqual([expect.objectContaining({ kind: "mcp server", files: [".env", "server.mjs"] })]);
    const input = JSON.stringify({ pair: ["x", 1] });
    expect((await keel("call", "mcp__a__tuple", "--input", input)).json()).toMatchObject({ ok: true });

    // A sandboxed command or a pull adds one line to the env file: node would now load evil.cjs before the server.
    appendFileSync(ws.path(".env"), "NODE_OPTIONS=--require ./evil.cjs\n");
    const held = await keel("call", "mcp__a__tuple", "--input", input);
    expect(held.exitCode).toBe(1);
    expect(held.json().content).toMatch(/MCP server "a" \(\.mcp\.json\) was added or changed since this workspace was trusted/);
    expect(ws.exists("evil-ran")).toBe(false);
  });
});
