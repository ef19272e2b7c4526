import { randomBytes } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";
import { filesContaining } from "../../helpers/files-containing.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

describe("API keys never reach keel's state (real CLI, local OpenAI-compatible server)", () => {
  const apiKey = `sk-test-${randomBytes(18).toString("hex")}`;
  let server: OpenAIServer;
  let ws: TempWorkspace;
  beforeAll(async () => {
    server = await startOpenAIServer();
    ws = makeWorkspace({ "notes.txt": "some notes\n" }, { git: true });
    // The endpoint is user-level configuration (a workspace may not choose where keys go).
    writeFileSync(join(ws.keelHome, "config.json"), JSON.stringify({ model: { name: "m", baseUrl: server.baseUrl } }));
  });
  afterAll(async () => {
    await server?.close();
    ws?.cleanup();
  });

  it("after keel run with a tool call, no file under .keel/ (or $KEEL_HOME) holds OPENAI_API_KEY's value", async () => {
    server.push({ toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "notes.txt" } }] }, { text: "the notes say: some notes" });
    const r = await runKeel(["run", "read notes.txt"], { cwd: ws.root, env: { ...ws.env, OPENAI_API_KEY: apiKey } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("the notes say");
    expect(server.requests).toHaveLength(2);
    expect(existsSync(ws.path(".keel", "sessions"))).toBe(true);
    expect(r.stdout + r.stderr).not.toContain(apiKey);
    expect(filesContaining(ws.path(".keel"), apiKey)).toEqual([]);
    expect(filesContaining(ws.keelHome, apiKey)).toEqual([]);
  });
});
