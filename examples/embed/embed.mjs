// Embedding keel: open a host on a workspace, list and call tools, run an agent turn.
//
//   node examples/embed/embed.mjs                      # tools only
//   KEEL_EXAMPLE_BASE_URL=http://127.0.0.1:11434/v1 KEEL_EXAMPLE_MODEL=llama3.1 node examples/embed/embed.mjs
//
// The agent turn runs when KEEL_EXAMPLE_BASE_URL names an OpenAI-compatible server.
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { callTool, createHost, listTools, runAgent } from "keel";

// A throw-away workspace holding the example code plugin (examples/code-plugin) as a workspace plugin.
const base = realpathSync(mkdtempSync(join(tmpdir(), "keel-embed-")));
const workspace = join(base, "workspace");
mkdirSync(join(workspace, ".keel"), { recursive: true });
cpSync(fileURLToPath(new URL("../code-plugin/", import.meta.url)), join(workspace, "plugins", "guard"), { recursive: true });

const baseUrl = process.env.KEEL_EXAMPLE_BASE_URL;
const host = await createHost({
  cwd: workspace,
  // A private user level, so the example never reads your ~/.keel.
  env: { ...process.env, KEEL_HOME: join(base, "keel-home") },
  // Workspace code plugins run only in a trusted workspace.
  trust: true,
  model: baseUrl ? { name: process.env.KEEL_EXAMPLE_MODEL ?? "local-model", baseUrl } : undefined,
  // Approves writes inside the workspace, refuses everything else that asks.
  approver: (request) => (request.resolvedTool === "write_file" ? "yes" : "no"),
});

try {
  for (const d of host.diagnostics.items) if (d.severity !== "info") console.log(`diagnostic: ${d.message}`);

  const tools = listTools(host);
  const mine = tools.filter((t) => t.source.kind === "plugin").map((t) => `${t.name} from plugin:${t.source.id}`);
  console.log(`tools: ${tools.length} (${mine.join(", ")})`);

  const counted = await callTool(host, "count_words", { text: "keel runs every call through one pipeline" });
  console.log(`count_words: ${counted.code} ${counted.content}`);

  const blocked = await callTool(host, "bash", { command: "git push --force origin main" }, { yes: true });
  console.log(`bash "git push --force": ${blocked.code} (${blocked.content})`);

  if (baseUrl) {
    process.stdout.write("agent: ");
    const outcome = await runAgent(host, "Count the words of 'one two three' and write the count to count.txt.", {
      onText: (delta) => process.stdout.write(delta),
      onToolStart: (call) => process.stdout.write(`\n  → ${call.tool} ${JSON.stringify(call.input)}`),
      onToolEnd: (call) => process.stdout.write(`\n  ← ${call.tool}: ${call.observation.code}\n`),
    });
    console.log(`\nagent outcome: ${outcome.reason} (${outcome.usage.modelCalls} model calls, ${outcome.usage.toolCalls} tool calls)`);
    console.log(`count.txt written: ${existsSync(join(workspace, "count.txt"))}`);
  }
} finally {
  await host.close();
  rmSync(base, { recursive: true, force: true });
}
