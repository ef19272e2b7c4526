#!/usr/bin/env node
// Checks keel as a library user meets it: `npm pack` (which runs `prepare`, the build), then, in a
// fresh project under /var/tmp, `npm install` of the tarball and the README's "Embedding keel"
// example run as written against a local OpenAI-compatible server, a trusted workspace's MCP server
// stopped by `host.close()`, and a TypeScript consumer type-checked against the shipped
// declarations (moduleResolution nodenext, node16 and bundler, skipLibCheck off).
//
//   node bin/check-package.mjs [--keep]
//
// Not part of `npm test`: it takes minutes and the install needs the npm cache or the registry.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("..", import.meta.url));

function main() {
  const base = mkdtempSync("/var/tmp/keel-package-");
  const consumer = join(base, "consumer");
  const workspace = join(base, "workspace");
  const failures = [];
  const run = (cmd, args, cwd, env = process.env) => execFileSync(cmd, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const check = (name, ok, detail = "") => {
    console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok || !detail ? "" : `\n${detail}`}`);
    if (!ok) failures.push(name);
  };

  try {
    const [packed] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", base], REPO));
    check(`npm pack (prepare builds): ${packed.filename}, ${packed.entryCount} files`, packed.entryCount > 0);
    mkdirSync(consumer);
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", join(base, packed.filename)], consumer);

    mkdirSync(workspace);
    for (const args of [
      ["init", "-q"],
      ["config", "user.email", "check@example.com"],
      ["config", "user.name", "check"],
    ])
      run("git", args, workspace);
    writeFileSync(join(workspace, "README.md"), "# Demo\nA workspace for the package check.\n");
    writeFileSync(
      join(workspace, ".mcp.json"),
      JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [join(consumer, "mcp-server.mjs")] } } }),
    );
    writeFileSync(join(consumer, "mcp-server.mjs"), MCP_SERVER);
    writeFileSync(join(consumer, "model-server.mjs"), MODEL_SERVER);
    writeFileSync(join(consumer, "example.mjs"), EXAMPLE);
    const env = { ...process.env, KEEL_HOME: join(base, "keel-home") };
    delete env.KEEL_TRUST;
    delete env.OPENAI_BASE_URL;
    const out = run(process.execPath, ["example.mjs", workspace], consumer, env);
    check("the README example runs: tools listed", /"read_file"/.test(out), out);
    check("callTool reads README.md", out.includes("observation: ok"), out);
    check("runAgent answers after a tool call", out.includes("outcome: answer The README says Demo.") && out.includes("tool end: read_file ok"), out);
    check("an untrusted workspace's MCP server does not start", out.includes("untrusted mcp tools: 0"), out);
    check("a trusted workspace's MCP server starts, and host.close() stops it", out.includes("trusted mcp tools: 1, servers: 1, after close: 0"), out);

    writeFileSync(join(consumer, "consumer.ts"), CONSUMER_TS);
    mkdirSync(join(consumer, "node_modules", "@types"), { recursive: true });
    symlinkSync(join(REPO, "node_modules", "@types", "node"), join(consumer, "node_modules", "@types", "node"), "dir");
    for (const [module, resolution] of [
      ["nodenext", "nodenext"],
      ["node16", "node16"],
      ["esnext", "bundler"],
    ]) {
      const flags = [
        "--noEmit",
        "--strict",
        "--skipLibCheck",
        "false",
        "--target",
        "es2022",
        "--module",
        module,
        "--moduleResolution",
        resolution,
        "--types",
        "node",
      ];
      let output = "";
      try {
        run(process.execPath, [join(REPO, "node_modules", "typescript", "bin", "tsc"), ...flags, "consumer.ts"], consumer);
      } catch (error) {
        output = `${error.stdout}${error.stderr}`;
      }
      check(`a TypeScript consumer type-checks (moduleResolution ${resolution}, skipLibCheck off)`, output === "", output);
    }
  } catch (error) {
    check("the check ran", false, `${error.message}\n${error.stdout ?? ""}${error.stderr ?? ""}`);
  } finally {
    if (process.argv.includes("--keep")) console.log(`kept: ${base}`);
    else rmSync(base, { recursive: true, force: true });
  }
  console.log(failures.length ? `${failures.length} check(s) failed` : "package check passed");
  process.exitCode = failures.length ? 1 : 0;
}

/** A stdio MCP server with one tool, on the SDK keel depends on. */
const MCP_SERVER = `import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
const server = new Server({ name: "echo", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "echo", description: "echo", inputSchema: { type: "object" } }] }));
server.setRequestHandler(CallToolRequestSchema, async (req) => ({ content: [{ type: "text", text: JSON.stringify(req.params.arguments) }] }));
await server.connect(new StdioServerTransport());
`;

/** An OpenAI-compatible streaming server: a read_file call, then an answer. */
const MODEL_SERVER = `import { createServer } from "node:http";
export function start() {
  const replies = [{ tool: "read_file", args: { path: "README.md" } }, { text: "The README says Demo." }];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const reply = replies.shift() ?? { text: "done" };
      const chunk = (delta, finish_reason = null) => res.write("data: " + JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason }] }) + "\\n\\n");
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (reply.tool) chunk({ role: "assistant", tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: reply.tool, arguments: JSON.stringify(reply.args) } }] }, "tool_calls");
      else chunk({ role: "assistant", content: reply.text }, "stop");
      res.end("data: [DONE]\\n\\n");
    });
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok({ url: "http://127.0.0.1:" + server.address().port + "/v1", close: () => server.close() })));
}
`;

/** The README's example (its model endpoint the local server), then the MCP server's lifecycle. */
const EXAMPLE = `import { execFileSync } from "node:child_process";
import { callTool, createHost, listTools, runAgent } from "keel";
import { start } from "./model-server.mjs";
const server = await start();
const host = await createHost({
  cwd: process.argv[2],
  trust: false,
  permissions: { allow: ["write_file(src/**)"], deny: ["bash(rm *)"] },
  model: { name: "llama3.1", baseUrl: server.url },
  approver: (request, signal) => "no",
  onEvent: (event) => {},
});
try {
  console.log(JSON.stringify(listTools(host).map((t) => t.name)));
  const observation = await callTool(host, "read_file", { path: "README.md" });
  console.log("observation: " + observation.code);
  const outcome = await runAgent(host, "Summarise README.md", {
    onText: (delta) => {},
    onToolEnd: ({ tool, observation }) => console.log("tool end: " + tool + " " + observation.code),
    signal: AbortSignal.timeout(120_000),
  });
  console.log("outcome: " + outcome.reason + " " + outcome.text);
  console.log("untrusted mcp tools: " + listTools(host).filter((t) => t.source.kind === "mcp").length);
} finally {
  await host.close();
  server.close();
}
const servers = () => execFileSync("ps", ["-eo", "ppid=,args="], { encoding: "utf8" }).split("\\n").filter((l) => l.trim().startsWith(process.pid + " ") && l.includes("mcp-server.mjs")).length;
const trusted = await createHost({ cwd: process.argv[2], trust: true });
const mcp = listTools(trusted).filter((t) => t.source.kind === "mcp").length;
const running = servers();
await trusted.close();
for (let i = 0; i < 100 && servers() > 0; i++) await new Promise((r) => setTimeout(r, 100));
console.log("trusted mcp tools: " + mcp + ", servers: " + running + ", after close: " + servers());
`;

/** The README's example as a TypeScript consumer writes it. */
const CONSUMER_TS = `import { callTool, createHost, listTools, runAgent, type AgentOutcome, type Host, type Observation } from "keel";
const host: Host = await createHost({
  cwd: "/path/to/repo",
  trust: false,
  permissions: { allow: ["write_file(src/**)"], deny: ["bash(rm *)"] },
  model: { name: "llama3.1", baseUrl: "http://localhost:11434/v1" },
  approver: (request, signal) => "no",
  onEvent: (event) => {},
});
try {
  console.log(listTools(host).map((t) => t.name));
  const observation: Observation = await callTool(host, "read_file", { path: "README.md" });
  const outcome: AgentOutcome = await runAgent(host, "Summarise README.md", {
    onText: (delta) => process.stdout.write(delta),
    onToolStart: ({ tool, input }) => {},
    onToolEnd: ({ tool, observation }) => {},
    signal: AbortSignal.timeout(120_000),
  });
  console.log(observation.code, outcome.reason, outcome.text, outcome.usage);
} finally {
  await host.close();
}
`;

main();
