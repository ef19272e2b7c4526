import { execFileSync } from "node:child_process";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadInstructions } from "../../../core/agent/project-instructions.js";
import { readEvents } from "../../../core/events.js";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

describe("project instructions (AGENTS.md, CLAUDE.md, GEMINI.md, KEEL.md)", () => {
  it("AGENTS.md of the root and of the subfolder run from, and the user's, reach the system prompt, nearest last", async () => {
    ws = makeWorkspace({ "AGENTS.md": "Root rule: use tabs.", "pkg/app/AGENTS.md": "App rule: no semicolons.", "pkg/KEEL.md": "Pkg rule: keel-specific." });
    writeFileSync(join(ws.keelHome, "AGENTS.md"), "User rule: answer in English.");
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    server.push({ text: "done" });
    const r = await runKeel(["--json", "run", "hello"], { cwd: ws.path("pkg", "app"), env: ws.env });
    expect(r.exitCode).toBe(0);
    const system = server.requests.at(-1)!.messages[0]!;
    expect(system.role).toBe("system");
    const text = system.content!;
    expect(text).toContain("# Project instructions");
    const order = ["User rule", "Root rule", "Pkg rule", "App rule"].map((s) => text.indexOf(s));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toContain("## pkg/app/AGENTS.md");
    // the session records which files it used
    const events = readEvents(ws.path(".keel", "sessions", r.json<{ sessionId: string }>().sessionId, "events.jsonl"));
    const used = events.find((e) => e.type === "instructions");
    expect(used && "files" in used && used.files.map((f) => `${f.level}:${f.path}`)).toEqual([
      "user:~keel/AGENTS.md",
      "workspace:AGENTS.md",
      "workspace:pkg/KEEL.md",
      "workspace:pkg/app/AGENTS.md",
    ]);
  });

  it("follows @imports of CLAUDE.md inside the workspace, refuses imports and symlinks that lead outside, and loads a symlinked file once", async () => {
    ws = makeWorkspace({
      "AGENTS.md": "Shared rules.",
      "docs/style.md": "Style: imported text. See @nested.md",
      "docs/nested.md": "Nested import text.",
      "CLAUDE.md": "Claude rules. Read @docs/style.md and @../secret.md and mail me@example.com.\n```\n@docs/not-in-code.md\n```",
    });
    writeFileSync(join(ws.root, "..", "secret.md"), "TOP SECRET");
    writeFileSync(join(ws.root, "..", "outside.md"), "OUTSIDE SECRET");
    symlinkSync(join(ws.root, "..", "outside.md"), ws.path("GEMINI.md"));
    symlinkSync(ws.path("AGENTS.md"), ws.path("KEEL.md"));
    const found = await loadInstructions({ root: ws.root, cwd: ws.root });
    const shown = found.files.map((f) => f.shown);
    expect(shown).toEqual(["AGENTS.md", "CLAUDE.md", "docs/style.md", "docs/nested.md"]);
    expect(found.files[2]!.importedFrom).toBe("CLAUDE.md");
    expect(found.files[3]!.importedFrom).toBe("docs/style.md");
    const all = found.files.map((f) => f.text).join("\n");
    expect(all).not.toContain("SECRET");
    expect(found.notes.join("\n")).toMatch(/secret\.md: leads outside the workspace/);
    expect(found.notes.join("\n")).toMatch(/GEMINI\.md: leads outside the workspace/);
  });

  it("an @import (or an instruction file) that a read deny or ask rule covers never reaches the system prompt", async () => {
    ws = makeWorkspace({
      "CLAUDE.md": "Setup: see @.env and @config/keys.json and @docs/ok.md",
      ".env": "API_TOKEN=hunter2",
      "config/keys.json": '{"key": "sk-live-123"}',
      "docs/ok.md": "Ordinary docs.",
      "AGENTS.md": "Shared rules (asked).",
      "private.txt": "PRIVATE NOTE",
    });
    // a link's name says nothing: the rule is judged where it leads
    symlinkSync(ws.path("private.txt"), ws.path("docs", "env.md"));
    ws.write("GEMINI.md", "Also @docs/env.md");
    // the user keeps .env and config/ from the model; the repository's CLAUDE.md tries to import them anyway
    ws.writeUserConfig({ permissions: { deny: ["read_file(.env)", "Read(config/**)", "read_file(private.txt)"], ask: ["read_file(AGENTS.md)"] } });
    const r = await runKeel(["--json", "context"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(0);
    const report = r.json<import("../../../core/cli/commands/context-command.js").ContextReport>();
    expect(report.system.text).not.toContain("hunter2");
    expect(report.system.text).not.toContain("sk-live-123");
    expect(report.system.text).not.toContain("Shared rules");
    expect(report.system.text).not.toContain("PRIVATE NOTE");
    expect(report.system.text).toContain("Ordinary docs.");
    expect(report.instructions.files.map((f) => f.path)).toEqual(["CLAUDE.md", "docs/ok.md", "GEMINI.md"]);
    const notes = report.instructions.notes.join("\n");
    expect(notes).toContain('.env: not loaded (deny rule "read_file(.env)" keeps it from the model)');
    expect(notes).toMatch(/config\/keys\.json: not loaded \(deny rule/);
    expect(notes).toMatch(/docs\/env\.md: not loaded \(deny rule "read_file\(private\.txt\)"/);
    expect(notes).toContain('AGENTS.md: not loaded (ask rule "read_file(AGENTS.md)"');
  });

  it("an @import of a file holding your environment's token shows it as *** in the system prompt", async () => {
    const token = "ghp_InstructionImport0123456789abcdefAB";
    ws = makeWorkspace({ "CLAUDE.md": "Setup: see @.env", ".env": `GITHUB_TOKEN=${token}\nREGION=eu\n` });
    const r = await runKeel(["--json", "context"], { cwd: ws.root, env: { ...ws.env, GITHUB_TOKEN: token } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toContain(token);
    expect(r.json<import("../../../core/cli/commands/context-command.js").ContextReport>().system.text).toContain("GITHUB_TOKEN=***\nREGION=eu");
  });

  it("a file cut at 64 KiB through your token shows no start of it (hidden before the cut)", async () => {
    const token = "ghp_InstructionCut0123456789abcdefABCDEF";
    ws = makeWorkspace({ "AGENTS.md": `${"x".repeat(64 * 1024 - 12)}${token}\nmore\n` });
    const r = await runKeel(["--json", "context"], { cwd: ws.root, env: { ...ws.env, GITHUB_TOKEN: token } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toContain(token.slice(0, 10));
    expect(r.json<import("../../../core/cli/commands/context-command.js").ContextReport>().system.text).toContain("x***");
  });

  it("a FIFO or a huge file does not hang or flood the prompt", async () => {
    ws = makeWorkspace({ "CLAUDE.md": "x".repeat(200_000) });
    execFileSync("mkfifo", [ws.path("AGENTS.md")]);
    const found = await loadInstructions({ root: ws.root, cwd: ws.root });
    expect(found.files.map((f) => f.shown)).toEqual(["CLAUDE.md"]);
    expect(found.files[0]!.truncated).toBe(true);
    expect(found.files[0]!.text.length).toBe(64 * 1024);
    expect(found.notes.join("\n")).toMatch(/AGENTS\.md: not loaded \(not a regular file\)/);
  });

  it("keel context prints the system prompt, the instruction files with their sources and the tool menu with token estimates", async () => {
    ws = makeWorkspace({
      "AGENTS.md": "Root rule.",
      "sub/CLAUDE.md": "Sub rule, see @notes.md",
      "sub/notes.md": "Imported note.",
      "plugins/p/plugin.json": { name: "p", hooks: { beforePrompt: "Remember the plugin." } },
    });
    const r = await runKeel(["--json", "context"], { cwd: ws.path("sub"), env: ws.env });
    expect(r.exitCode).toBe(0);
    const report = r.json<import("../../../core/cli/commands/context-command.js").ContextReport>();
    expect(report.model).toBeNull();
    expect(report.instructions.files.map((f) => [f.path, f.importedFrom ?? null])).toEqual([
      ["AGENTS.md", null],
      ["sub/CLAUDE.md", null],
      ["sub/notes.md", "sub/CLAUDE.md"],
    ]);
    expect(report.system.text).toContain("Imported note.");
    expect(report.hookTexts).toContain("Remember the plugin.");
    const read = report.tools.find((t) => t.name === "read_file")!;
    expect(read.tokens).toBeGreaterThan(10);
    expect(report.totals.toolTokens).toBe(report.tools.filter((t) => !t.deferred).reduce((n, t) => n + t.tokens, 0));
    expect(report.totals.firstRequestTokens).toBeGreaterThan(report.totals.systemTokens + report.totals.toolTokens);
    const human = await runKeel(["context"], { cwd: ws.path("sub"), env: ws.env });
    expect(human.stdout).toMatch(/sub\/notes\.md\s+workspace\s+\d+\s+imported by sub\/CLAUDE\.md/);
    expect(human.stdout).toMatch(/First request ≈ \d+ tokens/);
  });
});
