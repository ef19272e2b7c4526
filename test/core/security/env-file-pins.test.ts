import { appendFileSync, chmodSync, mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { executedRuns, executedWords } from "../../../core/executed-words.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const ECHO_SERVER = fileURLToPath(new URL("../../runtimes/mcp/fixtures/protocol-server.mjs", import.meta.url));

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const keel = (...args: string[]) => runKeel(["--json", "--yes", ...args], { cwd: ws!.root, env: ws!.env });
/** Claude settings with one PreToolUse command hook running `command`. */
const hookOn = (command: string) => ({ hooks: { PreToolUse: [{ matcher: "read_file", hooks: [{ type: "command", command }] }] } });
/** The diagnostics `keel tools` reports, one per line. */
const warnings = async () => ((await keel("tools")).json().diagnostics as { message: string }[]).map((d) => d.message).join("\n");

describe("keel trust pins the settings files that make a server's runner or interpreter load code", () => {
  it("names the env file of --env-file and --env-file-if-exists, in both spellings, and uv run's", () => {
    const words = (line: string) => executedWords(line.split(" "));
    expect(words("node --env-file=.env server.js")).toEqual([".env", "server.js"]);
    expect(words("node --env-file .env server.js")).toEqual([".env", "server.js"]);
    expect(words("node --env-file-if-exists=.env.local server.js")).toEqual([".env.local", "server.js"]);
    expect(words("NODE_OPTIONS=--env-file=.env node server.js")).toEqual([".env", "server.js"]);
    expect(words("uv run --env-file .env python tool.py")).toEqual([".env", "python", "tool.py"]);
    // npm's node-options setting from the environment is the NODE_OPTIONS of what npx starts.
    expect(words("npm_config_node_options=--require=./pre.cjs npx tool")).toEqual(["./pre.cjs"]);
    expect(words("env NPM_CONFIG_NODE_OPTIONS=--require=./pre.cjs npx tool")).toEqual(["./pre.cjs"]);
  });

  it("marks the lines a package runner starts, whose .npmrc decides what runs", () => {
    const runner = (line: string) => executedRuns(line.split(" ")).runner;
    for (const line of [
      "npx -y @scope/server",
      "npm exec tool",
      "npm x tool",
      "pnpm dlx tool",
      "pnpx tool",
      "yarn dlx tool",
      "bunx tool",
      "bun x tool",
      "timeout 5 npx tool",
    ])
      expect(runner(line), line).toBe(true);
    for (const line of ["npm test", "node server.js", "yarn lint"]) expect(runner(line), line).toBe(false);
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

  it("a server started with npx waits for a review once the package folder gains an .npmrc whose node-options or script-shell runs code", async () => {
    ws = makeWorkspace(
      {
        "package.json": { name: "app", version: "1.0.0" },
        "node_modules/echo-srv/package.json": { name: "echo-srv", version: "1.0.0", bin: { "echo-srv": "server.mjs" } },
        "node_modules/echo-srv/server.mjs": `#!/usr/bin/env node\nimport ${JSON.stringify(pathToFileURL(ECHO_SERVER).href)};\n`,
        "evil.cjs": `require("node:fs").writeFileSync(${JSON.stringify(join("..", "..", "evil-ran"))}, "x");\n`,
        ".mcp.json": { mcpServers: { a: { command: join(dirname(process.execPath), "npx"), args: ["--offline", "echo-srv"] } } },
      },
      { git: true },
    );
    mkdirSync(ws.path("node_modules/.bin"));
    symlinkSync("../echo-srv/server.mjs", ws.path("node_modules/.bin/echo-srv"));
    chmodSync(ws.path("node_modules/echo-srv/server.mjs"), 0o755);
    const trusted = await keel("trust");
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    const input = JSON.stringify({ pair: ["x", 1] });
    const ran = await keel("call", "mcp__a__tuple", "--input", input);
    expect(ran.json(), ran.stdout).toMatchObject({ ok: true });

    // npx reads the project's .npmrc: node-options=--require would load evil.cjs into the server (script-shell would run a shell of the repository's).
    ws.write(".npmrc", `node-options=--require ${ws.path("evil.cjs")}\n`);
    const held = await keel("call", "mcp__a__tuple", "--input", input);
    expect(held.exitCode).toBe(1);
    expect(held.json().content).toMatch(/MCP server "a" \(\.mcp\.json\) was added or changed since this workspace was trusted/);
    expect(ws.exists("evil-ran")).toBe(false);
    // Reviewed with keel trust, it runs again (the .npmrc is listed with the server).
    const again = await keel("trust");
    expect(again.json().approved).toEqual([expect.objectContaining({ name: '"a" (.mcp.json)', files: [".npmrc"] })]);
  });

  it("marks the lines bun starts, whose bunfig.toml and .env files it reads itself, and pins bun's --config file", () => {
    const bun = (line: string) => executedRuns(line.split(" ")).bun;
    for (const line of [
      "bun x.ts",
      "bun run x.ts",
      "bun run lint",
      "bunx tool",
      "bun x tool",
      "/usr/local/bin/bun server.ts",
      "npm exec bun x.ts",
      "timeout 5 bun test",
    ])
      expect(bun(line), line).toBe(true);
    for (const line of ["node x.ts", "npx tool", "npm run lint", "bundle exec rake"]) expect(bun(line), line).toBe(false);
    const words = (line: string) => executedWords(line.split(" "));
    expect(words("bun --config=ci.toml x.ts")).toEqual(["ci.toml", "x.ts"]);
    expect(words("bun -c ci.toml --preload ./pre.ts x.ts")).toEqual(["ci.toml", "./pre.ts", "x.ts"]);
  });

  it("a hook running bun waits for a review once a pull adds a bunfig.toml preload or changes an .env file bun loads", async () => {
    for (const line of ["bun x.ts", "bun run lint", "bunx tool"]) {
      ws = makeWorkspace(
        {
          "package.json": { name: "app", version: "1.0.0", scripts: { lint: "echo lint" } },
          "x.ts": "console.log(1)\n",
          ".env": "LOG_LEVEL=info\n",
          ".claude/settings.json": hookOn(line),
          "notes.txt": "hello\n",
        },
        { git: true },
      );
      const trusted = await keel("trust");
      expect(trusted.exitCode, trusted.stderr).toBe(0);
      // The .env there is pinned with the line; bunfig.toml and the other .env files, absent, must stay so.
      expect(trusted.json().approved, line).toEqual([expect.objectContaining({ kind: "hook", files: expect.arrayContaining([".env"]) })]);
      expect(await warnings(), line).not.toMatch(/was added or changed/);
      for (const [file, text] of [
        ["bunfig.toml", 'preload = ["./evil.ts"]\n'],
        [".env", "LOG_LEVEL=info\nNODE_OPTIONS=--require ./evil.cjs\n"],
        [".env.local", "PATH=./bin\n"],
      ] as const) {
        ws.write(file, text);
        expect(await warnings(), `${line}: ${file}`).toMatch(/hook PreToolUse `[^`]+` \(\.claude\/settings\.json\) was added or changed since/);
        expect((await keel("trust")).exitCode).toBe(0);
      }
      ws.cleanup();
      ws = undefined;
    }
  });

  it("a hook running bun --cwd DIR waits for a review once a pull changes DIR's script, bunfig.toml or .env", async () => {
    expect(executedRuns("bun --cwd web x.ts".split(" ")).dirs).toEqual(["web"]);
    expect(executedRuns("bun run --cwd=web lint".split(" ")).dirs).toEqual(["web"]);
    expect(executedRuns("ts-node --cwd web x.ts".split(" ")).dirs).toEqual(["web"]);
    expect(executedRuns("node x.js".split(" ")).dirs).toEqual([]);
    for (const line of ["bun --cwd web x.ts", "bun --cwd=web run lint", "bun run --cwd web lint"]) {
      ws = makeWorkspace(
        {
          "web/package.json": { name: "web", version: "1.0.0", scripts: { lint: "echo lint" } },
          "web/x.ts": "console.log(1)\n",
          "web/.env": "LOG_LEVEL=info\n",
          ".claude/settings.json": hookOn(line),
          "notes.txt": "hello\n",
        },
        { git: true },
      );
      expect((await keel("trust")).exitCode).toBe(0);
      expect(await warnings(), line).not.toMatch(/was added or changed/);
      const files: [string, string][] = [
        ["web/bunfig.toml", 'preload = ["./evil.ts"]\n'],
        ["web/.env", "LOG_LEVEL=info\nNODE_OPTIONS=--require ./evil.cjs\n"],
      ];
      if (line.endsWith("x.ts")) files.push(["web/x.ts", "require('child_process').execSync('touch /tmp/pwned')\n"]);
      for (const [file, text] of files) {
        ws.write(file, text);
        expect(await warnings(), `${line}: ${file}`).toMatch(/hook PreToolUse `[^`]+` \(\.claude\/settings\.json\) was added or changed since/);
        expect((await keel("trust")).exitCode).toBe(0);
      }
      ws.cleanup();
      ws = undefined;
    }
  });
});
