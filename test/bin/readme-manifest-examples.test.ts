import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

/**
 * README's manifest examples cannot drift: each fenced block README marks with
 * `<!-- example: PATH -->` (`PATH, trusted`: the workspace is trusted; `example+:` joins the
 * example before it) is written, exactly as printed, to PATH in a fresh workspace (`$KEEL_HOME/…`
 * under its own user folder). `keel plugins`, `keel tools`, `keel workflow list` and `keel doctor`
 * must accept it without a diagnostic, and it must do what the text around it says. Every other
 * JSON, Markdown or JavaScript block of README must be listed in NOT_AN_EXAMPLE with the reason.
 */
const README = readFileSync(join(fileURLToPath(new URL("../..", import.meta.url)), "README.md"), "utf8");

/** Blocks that are not a file to drop in (by the heading they stand under), and why. */
const NOT_AN_EXAMPLE: Record<string, string> = {
  "#### Run records": "output: a run record keel writes",
  "#### Example: four files merged": "test/bin/readme-config-example.test.ts writes and checks these four files",
  "### Sub-agents: `delegate_agent`": "a tool call's input, not a file",
  "## Embedding keel": "library code with placeholder paths (examples/embed/embed.mjs is the runnable copy: test/lib/embed-example.test.ts)",
};

/** Files an example names but does not show, which a user following it has (by the example's path). */
const SUPPORT: Record<string, Record<string, string>> = {
  // contextFileName names it; "Files must really lie inside the extension folder".
  ".gemini/extensions/release-kit/gemini-extension.json": { ".gemini/extensions/release-kit/RELEASING.md": "Tag, then publish.\n" },
  // The scripted model's first turn reads README.md.
  "script.json": { "README.md": "# A project\n" },
};

/** Variables the examples reference as `${VAR}` without a default: a user following them has them set. */
const EXAMPLE_ENV = {
  EXAMPLE_TOKEN: "example-token-value",
  GITHUB_TOKEN: "ghp_exampleexampleexampleexample0000",
  KEEL_SERVE_TOKEN: "serve-token-0123456789abcdef",
};

interface Example {
  path: string;
  text: string;
  heading: string;
  trusted: boolean;
  joins: boolean;
}

/** Marked examples in README order, the headings of unmarked JSON/Markdown/JS blocks, and markers no block follows at once. */
function scan(): { examples: Example[]; unmarked: string[]; orphans: string[] } {
  const lines = README.split("\n");
  const examples: Example[] = [];
  const unmarked: string[] = [];
  const orphans: string[] = [];
  let heading = "";
  let marker: RegExpExecArray | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#{1,6} /.test(line)) heading = line;
    const m = /^<!-- example(\+)?: (.+?)(, trusted)? -->$/.exec(line);
    if (m) {
      marker = m;
      continue;
    }
    const fence = /^```(\w*)$/.exec(line);
    if (!fence) {
      // A marker must stand right above its block: one a line apart (or above an indented block) would check nothing.
      if (marker) orphans.push(`line ${i}: ${lines[i - 1]}`);
      marker = null;
      continue;
    }
    const end = lines.findIndex((l, j) => j > i && l.startsWith("```"));
    const text = lines.slice(i + 1, end).join("\n") + "\n";
    if (marker) examples.push({ path: marker[2]!, text, heading, trusted: !!marker[3], joins: !!marker[1] });
    else if (["json", "markdown", "js", "toml", "yaml"].includes(fence[1]!)) unmarked.push(heading);
    marker = null;
    i = end;
  }
  return { examples, unmarked, orphans };
}

/** Examples grouped into workspaces: an `example+:` joins the one before it. */
function groups(): Example[][] {
  const out: Example[][] = [];
  for (const e of scan().examples) {
    if (e.joins) out.at(-1)!.push(e);
    else out.push([e]);
  }
  return out;
}

const workspaces: TempWorkspace[] = [];
afterAll(() => workspaces.forEach((w) => w.cleanup()));

/** A fresh workspace holding one group's files (and their SUPPORT files); returns it and a runner. */
function setUp(group: Example[]) {
  const ws = makeWorkspace({}, { git: true, under: "/var/tmp" });
  workspaces.push(ws);
  for (const e of group) {
    const files = { [e.path]: e.text, ...SUPPORT[e.path] };
    for (const [rel, text] of Object.entries(files)) {
      const file = rel.startsWith("$KEEL_HOME/") ? join(ws.keelHome, rel.slice("$KEEL_HOME/".length)) : ws.path(rel);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
  }
  const env = { ...ws.env, ...EXAMPLE_ENV };
  const trust = group.some((e) => e.trusted) ? ["--trust"] : [];
  const keel = (...args: string[]) => runKeel([...trust, ...args], { cwd: ws.root, env });
  return { ws, keel };
}

/** The group whose first example is at `path` and holds `text`. */
function example(path: string, text = ""): Example[] {
  const found = groups().filter((g) => g[0]!.path === path && g.some((e) => e.text.includes(text)));
  expect(found, `README example ${path} holding ${JSON.stringify(text)}`).toHaveLength(1);
  return found[0]!;
}

type Diagnostic = { severity: string; message: string; file?: string; path?: string };

describe("README's manifest examples", () => {
  it("every JSON, Markdown and JS block is a marked example or listed as not one", () => {
    const { examples, unmarked, orphans } = scan();
    expect(examples.length).toBeGreaterThanOrEqual(25);
    expect(orphans).toEqual([]);
    expect(unmarked.filter((h) => !NOT_AN_EXAMPLE[h])).toEqual([]);
  });

  it.each(groups().map((g) => [`${g.map((e) => e.path).join(" + ")} (${g[0]!.heading})`, g] as const))(
    "%s loads without a diagnostic",
    async (_name, group) => {
      const { keel } = setUp(group);
      const problems: string[] = [];
      const report = (command: string, diagnostics: Diagnostic[]) =>
        problems.push(...diagnostics.map((d) => `${command}: ${d.severity} ${d.file ?? ""}:${d.path ?? ""} ${d.message}`));
      const plugins = await keel("--json", "plugins");
      report("plugins", [...plugins.json().diagnostics, ...plugins.json().failed]);
      report("tools", (await keel("--json", "tools")).json().diagnostics);
      report("workflow list", (await keel("--json", "workflow", "list")).json().diagnostics);
      // doctor's model check asks the endpoint (OpenAI, OpenRouter, …): not for the model examples.
      if (!group.some((e) => e.text.includes('"model"'))) {
        const checks: { name: string; status: string; message: string }[] = (await keel("--json", "doctor")).json().checks;
        const expected = (c: { name: string; message: string }) =>
          ["node", "trust", "model", "sandbox", "env", "git"].includes(c.name) || (c.name.startsWith("mcp:") && c.message.startsWith("untrusted"));
        problems.push(...checks.filter((c) => (c.status === "warn" || c.status === "fail") && !expected(c)).map((c) => `doctor: ${c.name} ${c.message}`));
      } else report("config list", (await keel("--json", "config", "list")).json().data.diagnostics);
      expect(problems).toEqual([]);
    },
    60_000,
  );
});

describe("README's manifest examples do what the text says", () => {
  const call = async (keel: ReturnType<typeof setUp>["keel"], tool: string, input: object) =>
    (await keel("--json", "call", tool, "--input", JSON.stringify(input))).json();

  it("tool_aliases: the default description, and the one given", async () => {
    const { keel } = setUp(example("plugins/shortcuts/plugin.json"));
    const tools: { name: string; description: string; source: string }[] = (await keel("--json", "tools")).json().tools;
    expect(tools.find((t) => t.name === "cat")).toMatchObject({ description: "Plugin alias from shortcuts for base tool read_file." });
    expect(tools.find((t) => t.name === "sh")).toMatchObject({ description: "Run a shell command." });
  });

  it("virtual_tools: the template renders arguments, nested values and literal braces", async () => {
    const { keel } = setUp(example("plugins/docs/plugin.json"));
    const o = await call(keel, "style_guide", { topic: "tests", audience: { role: "reviewers" } });
    expect(o.content).toBe("For tests: write short sentences. Audience: reviewers. Literal braces: {like this}.");
    expect(o.metadata).toMatchObject({ action: "plugin_virtual_tool", plugin_name: "docs", virtual_tool: "style_guide", team: "docs" });
  });

  it("blocked_tools: the call ends in phase hook with README's text", async () => {
    const { keel } = setUp(example("plugins/guard/plugin.json"));
    expect(await call(keel, "bash", { command: "echo hi" })).toMatchObject({ phase: "hook", code: "tool_blocked", content: "Plugin guard blocked tool bash." });
  });

  it("tool_hooks: guidance before and after, and a block with its message", async () => {
    const { ws, keel } = setUp(example("plugins/reviewer/plugin.json"));
    ws.write("notes.txt", "hello\n");
    const read = await call(keel, "read_file", { path: "notes.txt" });
    expect(read.messages).toEqual({
      beforeTool: ["reviewer: Prefer small, reversible steps."],
      afterResult: ["reviewer: Quote line numbers when you cite this file."],
    });
    const bash = await call(keel, "bash", { command: "echo hi" });
    expect(bash).toMatchObject({ code: "tool_blocked", content: "Shell access is disabled in this repository; use the file tools." });
  });

  it("mcpServers and workflows: the server waits for trust, the workflow is listed", async () => {
    const { keel } = setUp(example("plugins/with-servers/plugin.json"));
    const plugin = (await keel("--json", "plugins")).json().plugins[0];
    expect(plugin).toMatchObject({ name: "with-servers", needsTrust: true });
    const workflows: { name: string }[] = (await keel("--json", "workflow", "list")).json().workflows;
    expect(workflows.map((w) => w.name)).toContain("docs-build");
  });

  it("a prompt command, a skill and a sub-agent type load as described", async () => {
    const { keel: commandKeel } = setUp(example(".claude/commands/review.md"));
    const workflows: { name: string; description: string }[] = (await commandKeel("--json", "workflow", "list")).json().workflows;
    expect(workflows).toContainEqual(expect.objectContaining({ name: "review", description: "Review the current change" }));

    const { keel: skillKeel } = setUp(example(".claude/skills/release/SKILL.md"));
    expect((await call(skillKeel, "skill", { name: "release" })).content).toContain("Bump the version in package.json");

    const { keel: agentKeel } = setUp(example(".claude/agents/reviewer.md"));
    const tools: { name: string; description: string }[] = (await agentKeel("--json", "tools")).json().tools;
    expect(tools.find((t) => t.name === "delegate_agent")!.description).toContain("- reviewer: Reviews code changes for bugs and risky edits.");
  });

  it("the code plugin: count_words counts, force pushes are blocked", async () => {
    const { keel } = setUp(example("$KEEL_HOME/plugins/guard/plugin.json"));
    expect((await call(keel, "count_words", { text: "one two three" })).content).toBe("3 words");
    const push = await keel("--json", "--yes", "call", "bash", "--input", JSON.stringify({ command: "git push --force" }));
    expect(push.json()).toMatchObject({ code: "tool_blocked", content: "Force pushes are blocked by the guard plugin; push without --force." });
  });

  it("the Gemini CLI extension: excludeTools blocks, contextFileName is loaded", async () => {
    const { keel } = setUp(example(".gemini/extensions/release-kit/gemini-extension.json"));
    expect(await call(keel, "write_file", { path: "x.txt", content: "x" })).toMatchObject({ code: "tool_blocked" });
    expect(await call(keel, "bash", { command: "echo hi && rm x" })).toMatchObject({ code: "tool_blocked" });
    const context = (await keel("--json", "context")).json();
    expect(JSON.stringify(context)).toContain("Gemini CLI extension release-kit");
  });

  it(".mcp.json: the servers are listed, untrusted until trusted", async () => {
    const { keel } = setUp(example(".mcp.json", '"everything"'));
    const servers: { name: string; state: string }[] = (await keel("--json", "mcp", "list")).json().servers;
    expect(servers.map((s) => [s.name, s.state])).toEqual([
      ["everything", "untrusted"],
      ["files", "untrusted"],
      ["memory", "untrusted"],
      ["remote", "untrusted"],
      ["legacy", "untrusted"],
    ]);
  });

  it("local resources: an inline resource is read by name and URI", async () => {
    const { keel } = setUp(example(".mcp.json", '"resources"'));
    expect((await call(keel, "mcp_read_resource", { uri: "notes://greeting" })).content).toContain("Hello from the manifest");
  });

  it("the workflow manifest: release-check is listed with its 8 steps", async () => {
    const { keel } = setUp(example(".claw-workflows.json", "release-check"));
    const workflows: { name: string; steps: number }[] = (await keel("--json", "workflow", "list")).json().workflows;
    expect(workflows).toContainEqual(expect.objectContaining({ name: "release-check" }));
    expect((await keel("workflow", "show", "release-check")).stdout).toContain("step_count=8");
  });

  it("the model examples in $KEEL_HOME/config.json set name and window (and the endpoint)", async () => {
    for (const group of groups().filter((g) => g[0]!.path === "$KEEL_HOME/config.json")) {
      const { keel } = setUp(group);
      const model = JSON.parse(group[0]!.text).model as { name: string; contextWindow: number; baseUrl?: string };
      const context = await keel("context");
      expect(context.stdout.split("\n")[0]).toBe(`Model: openai:${model.name} (context window ${model.contextWindow} tokens)`);
      const baseUrl = (await keel("--json", "config", "get", "model.baseUrl")).json().data;
      if (model.baseUrl) expect(baseUrl).toMatchObject({ value: model.baseUrl, source: "user" });
    }
  });

  it("the scripted model replays its turns", async () => {
    const { keel } = setUp(example("script.json"));
    const run = await keel("run", "--model", "scripted:script.json", "What is this?");
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("Reading the file.");
    expect(run.stdout).toContain("The README describes keel.");
    expect(run.stderr).toContain("read_file");
  });
});
