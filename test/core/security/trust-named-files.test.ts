import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { executedWords } from "../../../core/executed-words.js";
import { fileDigest, namedWorkspaceFiles } from "../../../core/file-digest.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { rewriteMidSession } from "../../helpers/rewrite-script.js";

const ECHO_SERVER = fileURLToPath(new URL("../../runtimes/mcp/fixtures/protocol-server.mjs", import.meta.url));

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

const keel = (...args: string[]) => runKeel(["--json", "--yes", ...args], { cwd: ws!.root, env: ws!.env });

describe("keel trust pins the workspace scripts a hook or server runs, not just the line naming them", () => {
  it("an MCP server whose script changed since keel trust (as a pull or a sandboxed command could change it) waits for a review", async () => {
    ws = makeWorkspace(
      {
        // The server's code is a workspace file the line names: `node server.mjs`.
        "server.mjs": `import ${JSON.stringify(pathToFileURL(ECHO_SERVER).href)};\n`,
        ".mcp.json": { mcpServers: { a: { command: process.execPath, args: ["server.mjs"] } } },
      },
      { git: true },
    );
    const trusted = await keel("trust");
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    // keel trust says which files it vouches for along with the line.
    expect(trusted.json().approved).toEqual([expect.objectContaining({ kind: "mcp server", name: '"a" (.mcp.json)', files: ["server.mjs"] })]);
    const input = JSON.stringify({ pair: ["x", 1] });
    expect((await keel("call", "mcp__a__tuple", "--input", input)).json()).toMatchObject({ ok: true, content: 'pair ["x",1]' });

    appendFileSync(ws.path("server.mjs"), "// changed after keel trust\n");
    const held = await keel("call", "mcp__a__tuple", "--input", input);
    expect(held.exitCode).toBe(1);
    expect(held.json().content).toMatch(/MCP server "a" \(\.mcp\.json\) was added or changed since this workspace was trusted/);

    expect((await keel("trust")).exitCode).toBe(0);
    expect((await keel("call", "mcp__a__tuple", "--input", input)).json()).toMatchObject({ ok: true });
  });

  it('an MCP server started through a shell (sh -c "node server.mjs") pins the script the shell runs', async () => {
    ws = makeWorkspace(
      {
        "server.mjs": `import ${JSON.stringify(pathToFileURL(ECHO_SERVER).href)};\n`,
        ".mcp.json": { mcpServers: { a: { command: "sh", args: ["-c", `exec '${process.execPath}' server.mjs`] } } },
      },
      { git: true },
    );
    const trusted = await keel("trust");
    expect(trusted.json().approved).toEqual([expect.objectContaining({ kind: "mcp server", files: ["server.mjs"] })]);
    const input = JSON.stringify({ pair: ["x", 1] });
    expect((await keel("call", "mcp__a__tuple", "--input", input)).json()).toMatchObject({ ok: true });
    appendFileSync(ws.path("server.mjs"), "// changed after keel trust\n");
    expect((await keel("call", "mcp__a__tuple", "--input", input)).json().content).toMatch(/MCP server "a" \(\.mcp\.json\) was added or changed since/);
  });

  it("a server started through a wrapper, with interpreter options taking values or preloading a module, pins its script and the module", async () => {
    ws = makeWorkspace(
      {
        "server.mjs": `import ${JSON.stringify(pathToFileURL(ECHO_SERVER).href)};\n`,
        "pre.cjs": "\n",
        ".mcp.json": {
          mcpServers: {
            a: { command: "/usr/bin/env", args: [process.execPath, "server.mjs"] },
            b: { command: process.execPath, args: ["-r", "./pre.cjs", "--title", "x", "server.mjs"] },
            c: { command: process.execPath, args: ["server.mjs"], env: { NODE_OPTIONS: "--require ./pre.cjs" } },
          },
        },
      },
      { git: true },
    );
    const trusted = await keel("trust");
    expect(trusted.json().approved).toEqual([
      expect.objectContaining({ name: '"a" (.mcp.json)', files: ["server.mjs"] }),
      expect.objectContaining({ name: '"b" (.mcp.json)', files: ["pre.cjs", "server.mjs"] }),
      expect.objectContaining({ name: '"c" (.mcp.json)', files: ["pre.cjs", "server.mjs"] }),
    ]);
    const input = JSON.stringify({ pair: ["x", 1] });
    expect((await keel("call", "mcp__c__tuple", "--input", input)).json()).toMatchObject({ ok: true });
    appendFileSync(ws.path("pre.cjs"), "// changed after keel trust\n");
    expect((await keel("call", "mcp__c__tuple", "--input", input)).json().content).toMatch(/was added or changed since/);
    appendFileSync(ws.path("server.mjs"), "// changed after keel trust\n");
    for (const s of ["a", "b"]) expect((await keel("call", `mcp__${s}__tuple`, "--input", input)).json().content).toMatch(/was added or changed since/);
  });

  it("a hook running its script with shell options (bash -e) pins the script", async () => {
    ws = makeWorkspace(
      {
        ".claude/hooks/mark.sh": "touch hook-ran\n",
        ".claude/settings.json": {
          hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: 'bash -e "$CLAUDE_PROJECT_DIR"/.claude/hooks/mark.sh' }] }] },
        },
        "notes.txt": "hello\n",
      },
      { git: true },
    );
    expect((await keel("trust")).json().approved).toEqual([expect.objectContaining({ kind: "hook", files: [".claude/hooks/mark.sh"] })]);
    writeFileSync(ws.path(".claude/hooks/mark.sh"), "touch changed-ran\n");
    await keel("call", "read_file", "--input", JSON.stringify({ path: "notes.txt" }));
    expect(ws.exists("changed-ran")).toBe(false);
  });

  it("a command hook whose script changed since keel trust does not run until reviewed; its line is unchanged", async () => {
    ws = makeWorkspace(
      {
        ".claude/hooks/mark.sh": "touch hook-ran\n",
        ".claude/settings.json": {
          hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: 'bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/mark.sh' }] }] },
        },
        "notes.txt": "hello\n",
      },
      { git: true },
    );
    const read = () => keel("call", "read_file", "--input", JSON.stringify({ path: "notes.txt" }));
    const trusted = await keel("trust");
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    expect(trusted.json().approved).toEqual([expect.objectContaining({ kind: "hook", files: [".claude/hooks/mark.sh"] })]);
    expect((await read()).json()).toMatchObject({ ok: true });
    expect(ws.exists("hook-ran")).toBe(true);

    // The script now does something else; the settings file is untouched.
    writeFileSync(ws.path(".claude/hooks/mark.sh"), "touch hook2-ran\n");
    const tools = await keel("tools");
    const warnings = (tools.json().diagnostics as { message: string }[]).map((d) => d.message).join("\n");
    expect(warnings).toMatch(
      /hook PreToolUse `bash "\$CLAUDE_PROJECT_DIR"\/\.claude\/hooks\/mark\.sh` \(\.claude\/settings\.json\) was added or changed since/,
    );
    expect((await read()).json()).toMatchObject({ ok: true });
    expect(ws.exists("hook2-ran")).toBe(false);

    expect((await keel("trust")).exitCode).toBe(0);
    expect((await read()).json()).toMatchObject({ ok: true });
    expect(ws.exists("hook2-ran")).toBe(true);
  });

  it('a hook whose command is the script itself, as Claude Code documents it ("$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh), pins the script too', async () => {
    for (const command of ['"$CLAUDE_PROJECT_DIR"/.claude/hooks/mark.sh', "${CLAUDE_PROJECT_DIR}/.claude/hooks/mark.sh"]) {
      ws = makeWorkspace(
        {
          ".claude/hooks/mark.sh": "#!/bin/sh\ntouch hook-ran\n",
          ".claude/settings.json": { hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command }] }] } },
          "notes.txt": "hello\n",
        },
        { git: true },
      );
      execFileSync("chmod", ["+x", ws.path(".claude/hooks/mark.sh")]);
      const read = () => keel("call", "read_file", "--input", JSON.stringify({ path: "notes.txt" }));
      const trusted = await keel("trust");
      expect(trusted.json().approved, command).toEqual([expect.objectContaining({ kind: "hook", files: [".claude/hooks/mark.sh"] })]);
      expect((await read()).json()).toMatchObject({ ok: true });
      expect(ws.exists("hook-ran")).toBe(true);

      writeFileSync(ws.path(".claude/hooks/mark.sh"), "#!/bin/sh\ntouch hook2-ran\n");
      expect((await read()).json()).toMatchObject({ ok: true });
      expect(ws.exists("hook2-ran"), command).toBe(false);
      ws.cleanup();
    }
    ws = undefined;
  });

  it("a hook whose script a command of the same session rewrote does not run for the rest of that session", async () => {
    ws = makeWorkspace(
      {
        ".claude/hooks/mark.sh": "touch hook-ran\n",
        ".claude/settings.json": {
          hooks: { PreToolUse: [{ matcher: "read_file", hooks: [{ type: "command", command: 'bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/mark.sh' }] }] },
        },
        "notes.txt": "hello\n",
        // The model (as a sandboxed bash command could) rewrites the script, then calls a tool the hook runs for.
        "script.json": rewriteMidSession(".claude/hooks/mark.sh", "touch rewritten-ran\n"),
      },
      { git: true },
    );
    expect((await keel("trust")).exitCode).toBe(0);
    const r = await runKeel(["--yes", "run", "--model", "scripted:script.json", "go"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ws.exists("hook-ran")).toBe(true); // as approved, before the rewrite
    expect(ws.read(".claude/hooks/mark.sh")).toBe("touch rewritten-ran\n");
    expect(ws.exists("rewritten-ran")).toBe(false);
    expect(r.stderr).toMatch(
      /PreToolUse hook `bash "\$CLAUDE_PROJECT_DIR"\/\.claude\/hooks\/mark\.sh` .* did not run: \.claude\/hooks\/mark\.sh changed since/,
    );
  });

  it("a hook naming a script that is not there when keel trust runs does not run one a command of the session creates, nor after", async () => {
    ws = makeWorkspace(
      {
        ".claude/settings.json": { hooks: { PreToolUse: [{ matcher: "read_file", hooks: [{ type: "command", command: "bash scripts/late.sh" }] }] } },
        "notes.txt": "hello\n",
        // The model (as a sandboxed bash command could) creates the script, then calls a tool the hook runs for.
        "script.json": rewriteMidSession("scripts/late.sh", "touch late-ran\n"),
      },
      { git: true },
    );
    const trusted = await keel("trust");
    expect(trusted.json().approved).toEqual([expect.objectContaining({ kind: "hook", files: ["scripts/late.sh"] })]);
    const r = await runKeel(["--yes", "run", "--model", "scripted:script.json", "go"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ws.read("scripts/late.sh")).toBe("touch late-ran\n");
    expect(ws.exists("late-ran")).toBe(false);
    expect(r.stderr).toMatch(/PreToolUse hook `bash scripts\/late\.sh` .* did not run: scripts\/late\.sh changed since/);
    expect(((await keel("tools")).json().diagnostics as { message: string }[]).map((d) => d.message).join("\n")).toMatch(
      /hook PreToolUse `bash scripts\/late\.sh` \(\.claude\/settings\.json\) was added or changed since/,
    );
    expect((await keel("call", "read_file", "--input", JSON.stringify({ path: "notes.txt" }))).json()).toMatchObject({ ok: true });
    expect(ws.exists("late-ran")).toBe(false);
  });

  it("a lazy MCP server whose script a command of the same session rewrote is not started", async () => {
    const echo = `import ${JSON.stringify(pathToFileURL(ECHO_SERVER).href)};\n`;
    ws = makeWorkspace(
      {
        "server.mjs": echo,
        ".mcp.json": { mcpServers: { a: { command: process.execPath, args: ["server.mjs"], lazy: true } } },
        // The model (as a sandboxed bash command could) rewrites the server, then calls one of its tools: the lazy server starts then.
        "script.json": {
          turns: [
            {
              toolCalls: [
                {
                  name: "write_file",
                  arguments: { path: "server.mjs", content: `import { writeFileSync } from "node:fs";\nwriteFileSync("rewritten-ran", "");\n${echo}` },
                },
              ],
            },
            { toolCalls: [{ name: "mcp__a__tuple", arguments: { pair: ["x", 1] } }] },
            { text: "done" },
          ],
        },
      },
      { git: true },
    );
    expect((await keel("trust")).exitCode).toBe(0);
    // Started once as approved (its tools are cached for the lazy start).
    expect((await keel("call", "mcp__a__tuple", "--input", JSON.stringify({ pair: ["x", 1] }))).json()).toMatchObject({ ok: true });
    const r = await runKeel(["--yes", "run", "--model", "scripted:script.json", "go"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ws.read("server.mjs")).toContain("rewritten-ran");
    expect(ws.exists("rewritten-ran")).toBe(false);
    expect(r.stdout + r.stderr).toMatch(/MCP server "a" is not available: server\.mjs changed since/);
  });
});

describe("namedWorkspaceFiles / fileDigest", () => {
  it("names the workspace files a line runs (a program written as a path, an interpreter's script; one not there yet as missing), not files it only reads or writes, and never waits on a FIFO", () => {
    ws = makeWorkspace({ "bin/run.sh": "echo hi\n", "conf/c.json": "{}", "tool.py": "print(1)\n" });
    execFileSync("mkfifo", [ws.path("pipe")]);
    const commands = [
      ["/bin/sh", "bin/run.sh"], // the system's sh is outside; its script is not
      ["prettier", "--write", "conf/c.json"], // a file it writes, not code it runs
      ["node", "missing.js"],
      ["./pipe"],
      ["python", "-m", "pkg"],
      ["bash", "../outside.sh"],
      ["uv", "run", "tool.py"],
      ["npx", "-y", "@scope/server"],
    ];
    const named = namedWorkspaceFiles(commands, ws.root, ws.root, { bytes: Infinity });
    // A script the line runs that is not there yet is pinned as missing (python -m pkg runs pkg.py or pkg/__main__.py).
    expect(named).toEqual([
      ["bin/run.sh", expect.stringMatching(/^sha256:[0-9a-f]{64}$/)],
      ["missing.js", "missing"],
      ["pipe", "not a regular file"],
      ["pkg.py", "missing"],
      [join("pkg", "__main__.py"), "missing"],
      ["tool.py", expect.stringMatching(/^sha256:/)],
    ]);
    // A line that changes folder runs its script from there (or, it may be, from where it started: missing there, pinned as missing).
    expect(namedWorkspaceFiles([["cd", "bin"], ["./run.sh"]], ws.root, ws.root, { bytes: Infinity })).toEqual([
      ["run.sh", "missing"],
      [join("bin", "run.sh"), expect.stringMatching(/^sha256:/)],
    ]);
    // Resolved against the line's own folder.
    mkdirSync(ws.path("sub"));
    expect(namedWorkspaceFiles([["bash", "../bin/run.sh"]], ws.path("sub"), ws.root, { bytes: Infinity }).map(([f]) => f)).toEqual([join("bin", "run.sh")]);
  });

  it("executedWords: the program when written as a path, and an interpreter's script after its options; nothing for code given inline", () => {
    expect(executedWords(["node", "--inspect", "server.js", "--port", "3"])).toEqual(["server.js"]);
    expect(executedWords(["deno", "run", "-A", "main.ts"])).toEqual(["main.ts"]);
    expect(executedWords(["./bin/server", "--config", "x.json"])).toEqual(["./bin/server"]);
    expect(executedWords(["bash", "-c", "echo hi"])).toEqual([]);
    expect(executedWords(["node", "-e", "1"])).toEqual([]);
    expect(executedWords(["deno", "fmt", "main.ts"])).toEqual([]);
    expect(executedWords(["touch", "hook-ran"])).toEqual([]);
    expect(executedWords(["exec", "/usr/bin/node", "server.mjs"])).toEqual(["/usr/bin/node", "server.mjs"]);
    expect(executedWords(["env", "-i", "A=1", "./run.sh"])).toEqual(["./run.sh"]);
    // Wrappers, runners and interpreter options that take a value or load code first.
    const words = (line: string) => executedWords(line.split(" "));
    expect(words("/usr/bin/env node server.js")).toEqual(["/usr/bin/env", "server.js"]);
    expect(words("timeout 10 nice -n 5 ./bin/server")).toEqual(["./bin/server"]);
    expect(words("node -r ./pre.js --title t server.js")).toEqual(["./pre.js", "server.js"]);
    expect(words("node --import=./l.mjs server.js")).toEqual(["./l.mjs", "server.js"]);
    expect(words("NODE_OPTIONS=--require=./pre.js node x.js")).toEqual(["./pre.js", "x.js"]);
    expect(words("python3.12 -W ignore -u x.py arg")).toEqual(["x.py"]);
    expect(words("python -m pkg.tool")).toEqual(["pkg/tool.py", "pkg/tool/__main__.py"]);
    expect(words("bash -e -o pipefail x.sh arg")).toEqual(["x.sh"]);
    expect(words("deno run --config deno.json -A main.ts")).toEqual(["main.ts"]);
    expect(words("uv run --with requests python tool.py")).toEqual(["python", "tool.py"]);
    expect(words("npx -y tsx x.ts")).toEqual(["x.ts"]);
    expect(words("uvx python x.py")).toEqual(["x.py"]);
    expect(words("java -jar server.jar")).toEqual(["server.jar"]);
    // An option keel does not know may take the next word: both are named.
    expect(words("node --some-option a.js b.js c.js")).toEqual(["a.js", "b.js"]);
    expect(words("sh -c ./run.sh")).toEqual(["./run.sh"]);
    // `npm run start` runs a package script, pinned by its text (see trust-script-pins.test.ts), not a file word.
    expect(words("npm run start")).toEqual([]);
  });

  it("a file past the hashing budget is pinned by its identity, which still changes when the file is rewritten", () => {
    ws = makeWorkspace({ "big.bin": "x".repeat(1000) });
    const budget = { bytes: 100 };
    const before = fileDigest(ws.path("big.bin"), budget);
    expect(before).toMatch(/^stat:1000:/);
    expect(budget.bytes).toBe(100); // nothing hashed
    writeFileSync(ws.path("big.bin"), "y".repeat(1001));
    expect(fileDigest(ws.path("big.bin"), budget)).not.toBe(before);
    // Within the budget it is a content hash, and the budget shrinks by its size.
    const roomy = { bytes: 5000 };
    expect(fileDigest(ws.path("big.bin"), roomy)).toMatch(/^sha256:/);
    expect(roomy.bytes).toBe(5000 - 1001);
  });
});
