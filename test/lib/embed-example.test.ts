import { execa } from "execa";
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../helpers/openai-server.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const TSC = join(REPO, "node_modules/typescript/bin/tsc");

/**
 * The examples run as a consumer's code: copied into a temp project whose `node_modules/keel` is a
 * symlink to this checkout (what `npm install ../keel` or `npm link` makes), so `import "keel"`
 * resolves through package.json `exports` to the built `dist/` and its declarations. `npm pack`
 * plus an install would also copy the files, but exercise the same `exports` map at several
 * times the cost; the symlink is the cheap honest equivalent.
 */
let consumer: string;
beforeAll(() => {
  consumer = realpathSync(mkdtempSync(join(tmpdir(), "keel-consumer-")));
  for (const dir of ["embed", "code-plugin"]) cpSync(join(REPO, "examples", dir), join(consumer, "examples", dir), { recursive: true });
  mkdirSync(join(consumer, "node_modules"));
  symlinkSync(REPO, join(consumer, "node_modules", "keel"), "dir");
  symlinkSync(join(REPO, "node_modules", "@types"), join(consumer, "node_modules", "@types"), "dir");
});
afterAll(() => rmSync(consumer, { recursive: true, force: true }));

const server = useOpenAIServer();
const env = (extra: Record<string, string> = {}) => {
  const e: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete e.KEEL_TRUST;
  delete e.OPENAI_BASE_URL;
  return e;
};

describe("examples/embed as a consumer runs it", () => {
  it("opens a host with the example code plugin, lists and calls tools (the plugin's tap blocks a force push), and runs an agent turn on a local server", async () => {
    server.push(
      {
        toolCalls: [
          { id: "c1", name: "count_words", arguments: { text: "one two three" } },
          { id: "c2", name: "write_file", arguments: { path: "count.txt", content: "3" } },
        ],
      },
      { text: "Three words; saved to count.txt." },
    );
    const run = await execa(process.execPath, [join(consumer, "examples/embed/embed.mjs")], {
      cwd: consumer,
      env: env({ KEEL_EXAMPLE_BASE_URL: server.baseUrl, KEEL_EXAMPLE_MODEL: "example-model" }),
      extendEnv: false,
      reject: false,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const out = run.stdout;
    expect(out).not.toContain("diagnostic:");
    expect(out).toMatch(/^tools: \d+ \(count_words from plugin:guard\)$/m);
    expect(out).toContain("count_words: ok 7 words");
    expect(out).toContain('bash "git push --force": tool_blocked (Force pushes are blocked by the guard plugin; push without --force.)');
    expect(out).toContain('→ count_words {"text":"one two three"}');
    expect(out).toContain("← count_words: ok");
    expect(out).toContain("← write_file: ok"); // approved by the example's approver function
    expect(out).toContain("Three words; saved to count.txt.");
    expect(out).toContain("agent outcome: answer (2 model calls, 2 tool calls)");
    expect(out).toContain("count.txt written: true");
    const toolResult = server.requests.at(-1)!.messages.find((m) => m.role === "tool" && m.tool_call_id === "c1");
    expect(toolResult?.content).toContain("3 words");
    expect(server.requests[0]!.model).toBe("example-model");
  });

  it("resolves keel only through node_modules and package exports: without the link the import fails, and deep imports are closed", async () => {
    const bare = realpathSync(mkdtempSync(join(tmpdir(), "keel-bare-")));
    try {
      cpSync(join(consumer, "examples"), join(bare, "examples"), { recursive: true });
      const missing = await execa(process.execPath, [join(bare, "examples/embed/embed.mjs")], { cwd: bare, env: env(), extendEnv: false, reject: false });
      expect(missing.exitCode).not.toBe(0);
      expect(missing.stderr).toMatch(/Cannot find package 'keel'/);
      writeFileSync(join(consumer, "deep.mjs"), `await import("keel/dist/core/host.js");`);
      const deep = await execa(process.execPath, [join(consumer, "deep.mjs")], { cwd: consumer, env: env(), extendEnv: false, reject: false });
      expect(deep.stderr).toMatch(/ERR_PACKAGE_PATH_NOT_EXPORTED/);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it("type-checks a consumer's TypeScript and the examples' JSDoc against the shipped declarations", async () => {
    writeFileSync(
      join(consumer, "consumer.ts"),
      [
        `import { callTool, createHost, listTools, runAgent, type AgentOutcome, type CodePluginApi, type Observation } from "keel";`,
        `const host = await createHost({ cwd: process.cwd(), trust: false, permissions: { deny: ["bash"] }, approver: () => "no" });`,
        `const names: string[] = listTools(host).map((t) => t.name);`,
        `const observation: Observation = await callTool(host, "read_file", { path: "x" });`,
        `const outcome: AgentOutcome = await runAgent(host, "hi", { onText: (d) => void d, onToolEnd: (c) => void c.observation.code });`,
        `export function apply(keel: CodePluginApi): void {`,
        `  keel.hooks.beforeTool.tapPromise(keel.name, async (ctx) => (ctx.tool.name === "bash" ? { block: true, by: keel.name, message: "no" } : undefined));`,
        `  keel.registerTool<{ text: string }>({ name: "t", description: "d", inputSchema: { type: "object" }, execute: (input) => input.text });`,
        `}`,
        `// @ts-expect-error: createHost needs a cwd`,
        `await createHost({});`,
        `console.log(names, observation.code, outcome.reason);`,
        `await host.close();`,
      ].join("\n"),
    );
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          noEmit: true,
          allowJs: true,
          checkJs: true,
          skipLibCheck: true,
          types: ["node"],
        },
        files: ["consumer.ts", "examples/embed/embed.mjs", "examples/code-plugin/index.mjs"],
      }),
    );
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ type: "module", private: true }));
    const tsc = await execa(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: consumer, reject: false, all: true });
    expect(tsc.exitCode, tsc.all).toBe(0);
  });
});
