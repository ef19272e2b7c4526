import { KEEL_GITIGNORE } from "../state/state-dir.js";

/** A starter file `keel init` writes (path relative to the workspace root, `/`-separated). */
export interface InitFile {
  path: string;
  text: string;
  /** What the file is for, shown next to it. */
  about: string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2) + "\n";

/**
 * The files `keel init` writes, each valid for keel's own loaders. JSON has no comments and keel
 * reads config as strict JSON, so the notes in `keel.config.json` are `"$comment"` keys (the JSON
 * Schema convention), which keel's config ignores at any level.
 */
export function initFiles(): InitFile[] {
  return [
    {
      path: "keel.config.json",
      about: "project config (permissions, model, agent limits)",
      text: json({
        $comment:
          'keel project config, written by `keel init`. Keys named "$comment" are notes keel ignores. Until you run `keel trust`, only the restricting keys of this file apply (deny and ask rules, limits). See README: Permissions, The agent.',
        permissions: {
          $comment:
            'Rules name a tool or a pattern: "bash(git push*)", "write_file(dist/**)". deny beats ask beats allow; allow rules apply once the workspace is trusted. `keel --yes` answers every ask.',
          deny: [],
          ask: ["bash(git push*)"],
        },
        model: {
          $comment:
            'Pick a model with `keel config set model.name gpt-4.1` (OPENAI_API_KEY), or a local server: {"name": "llama3.1", "baseUrl": "http://localhost:11434/v1"} (baseUrl is read only from a trusted file). `keel doctor` checks it.',
        },
        agent: {
          $comment: "Model calls per turn of `keel run` (maxSteps); budgets cap a whole session.",
          maxSteps: 25,
        },
      }),
    },
    {
      path: "plugins/example/plugin.json",
      about: "an example plugin (a virtual tool answered from a template)",
      text: json({
        name: "example",
        version: "0.1.0",
        description: "An example plugin written by `keel init`: edit or delete it. Fields: README, Plugins: plugin.json.",
        virtual_tools: [
          {
            name: "example_hello",
            description: "Say hello (answered from a template; no code runs).",
            response_template: "Hello {name}, from the example plugin!",
            parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
          },
        ],
      }),
    },
    {
      path: ".mcp.json",
      about: "MCP servers (the example is disabled: set disabled to false, then keel trust)",
      text: json({
        mcpServers: {
          everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"], disabled: true },
        },
      }),
    },
    {
      path: "AGENTS.md",
      about: "instructions every session starts with",
      text: [
        "# AGENTS.md",
        "",
        "Instructions for coding agents (keel, Codex, Claude Code and others read this file).",
        "",
        "## Project",
        "",
        "- What this repository is and where the code lives.",
        "",
        "## Commands",
        "",
        "- Build: `…`",
        "- Test: `…`",
        "",
        "## Conventions",
        "",
        "- Style, naming, and what to check before finishing.",
        "",
      ].join("\n"),
    },
    { path: ".keel/.gitignore", about: "keeps keel's state out of git", text: KEEL_GITIGNORE },
  ];
}
