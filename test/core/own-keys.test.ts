import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { mcpWorkspace, nodeServer } from "../runtimes/mcp/mcp-test-kit.js";

const NAMED = fileURLToPath(new URL("../runtimes/mcp/fixtures/named-tools-server.mjs", import.meta.url));

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** Names every plain object answers (Object.prototype's): a table looked up with one must not find them. */
const PROTO_NAMES = ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf"];

describe("words from input are looked up as own keys only (names such as `toString` or `__proto__`)", () => {
  it("allow rules named toString, constructor, __proto__ load (every command failed: `allowLevels[rule].includes is not a function`)", async () => {
    ws = makeWorkspace();
    ws.writeUserConfig({ permissions: { allow: PROTO_NAMES } });
    const run = await runKeel(["config", "get", "permissions"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("is not a function");
    for (const name of PROTO_NAMES) expect(run.stdout).toContain(`"${name}"`);
  });

  it("a committed .mcp.json's ${toString} is an unset variable (an untrusted workspace's one failed `keel mcp list` with a TypeError)", async () => {
    ws = mcpWorkspace({ s: nodeServer(NAMED, ["${toString}"], { env: { KEEL_TOOLS: '["t"]', X: "${constructor}" } }) });
    const run = await runKeel(["mcp", "list"], { cwd: ws.root, env: ws.env });
    // Exit 1 names the failed server (not started: an unset variable), as for any other unset name.
    expect(run.stderr + run.stdout).not.toContain("is not a function");
    expect(run.stdout + run.stderr).toContain("unset environment variable ${toString}, ${constructor}");
  });

  it("an MCP server's image of type `toString` is saved as .bin (the file name held `function toString() { [native code] }`)", async () => {
    const content = [{ type: "image", data: Buffer.from("hello").toString("base64"), mimeType: "toString" }];
    ws = mcpWorkspace({ s: nodeServer(NAMED, ["s"], { env: { KEEL_TOOLS: '["t"]', KEEL_CONTENT: JSON.stringify(content) } }) });
    const run = await runKeel(["--json", "--trust", "call", "mcp__s__t", "--input", "{}"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode, run.stderr).toBe(0);
    const artifacts = run.json<{ artifacts: { path: string }[] }>().artifacts;
    expect(artifacts).toHaveLength(1);
    expect(artifacts[0]!.path).toMatch(/^\.keel\/artifacts\/[\w-]+-image-0\.bin$/);
    expect(ws.read(artifacts[0]!.path)).toBe("hello");
  });
  it("a plugin's tool named toString reaches its hooks by name, input fields as given (the hook got no tool_name, `name` became `toString`)", async () => {
    ws = makeWorkspace({
      "plugins/p/plugin.json": {
        name: "p",
        virtual_tools: [{ name: "toString", response: "hi" }],
        hooks: { PreToolUse: [{ matcher: "toString", hooks: [{ type: "command", command: 'cat > "$CLAUDE_PROJECT_DIR/seen.json"' }] }] },
      },
    });
    const run = await runKeel(["--json", "--trust", "call", "toString", "--input", JSON.stringify({ name: "n", length: 3 })], { cwd: ws.root, env: ws.env });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(ws.read("seen.json"))).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "toString", tool_input: { name: "n", length: 3 } });
  });
  it("keel config set toString.x writes that key (it stopped: `toString is undefined in local, not an object`)", async () => {
    ws = makeWorkspace();
    const run = await runKeel(["config", "set", "toString.x", "1"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(ws.read(".keel/config.local.json"))).toEqual({ toString: { x: 1 } });
  });
});
