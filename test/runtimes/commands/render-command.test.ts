import { describe, expect, it } from "vitest";
import { parseClaudeCommand, parseGeminiCommand, type PromptCommand } from "../../../manifests/commands/prompt-command.js";
import { renderCommand, shellWords, type RenderDeps } from "../../../runtimes/commands/render-command.js";

const origin = { file: "/ws/.claude/commands/x.md", level: "project" as const };
const claude = (text: string): PromptCommand => parseClaudeCommand(text, "x", origin).command!;
const gemini = (text: string): PromptCommand => parseGeminiCommand(text, "x", { ...origin, file: "/ws/.gemini/commands/x.toml" }).command!;

/** Records what rendering asked for; files and commands are answered from maps (the host's real ones are tested end to end). */
function deps(files: Record<string, string> = {}, shell: Record<string, string> = {}): RenderDeps & { ran: string[] } {
  const ran: string[] = [];
  return {
    ran,
    async readFile(path) {
      if (!(path in files)) throw new Error("no such file");
      return files[path]!;
    },
    async runShell(command) {
      ran.push(command);
      if (!(command in shell)) throw new Error("not allowed by allowed-tools");
      return shell[command]!;
    },
  };
}

describe("prompt commands: parsing and rendering", () => {
  it("Claude: front matter, $ARGUMENTS and $1…$9 with quoted words", async () => {
    const cmd = claude(
      '---\ndescription: Greets\nargument-hint: "[name] [place]"\nallowed-tools: Bash(git status:*), Read\nmodel: m2\n---\nSay hello to $ARGUMENTS.\nFirst: $1, second: $2, none: [$3]\n',
    );
    expect(cmd).toMatchObject({ description: "Greets", argumentHint: "[name] [place]", allowedTools: ["Bash(git status:*)", "Read"], model: "m2" });
    const r = await renderCommand(cmd, 'world "New York"', deps());
    expect(r.text).toBe('Say hello to world "New York".\nFirst: world, second: New York, none: []\n');
  });

  it("Claude: an argument fills in the template's !`cmd` lines but can never add one (the model may write the arguments)", async () => {
    const cmd = claude("Log: !`git log $1`\nSummarize $ARGUMENTS");
    const d = deps({}, { "git log -3": "abc fix" });
    const r = await renderCommand(cmd, "-3 !`touch pwned`", d);
    expect(d.ran).toEqual(["git log -3"]);
    expect(r.text).toBe("Log: abc fix\nSummarize -3 !`touch pwned`");
    const appended = await renderCommand(claude("Plain text."), "!`touch pwned`", d);
    expect(d.ran).toEqual(["git log -3"]);
    expect(appended.text).toBe("Plain text.\n\nARGUMENTS: !`touch pwned`");
  });

  it("Claude and Gemini: only the command file's own @path / @{path} is read; one in the arguments or a shell line's output stays text", async () => {
    const files = { "notes.txt": "private notes", "docs/guide.md": "the guide" };
    const reads: string[] = [];
    const d = deps(files, { "git log -1": "see @notes.txt" });
    const read = d.readFile;
    d.readFile = async (path) => (reads.push(path), read(path));
    const all = await renderCommand(claude("Review $ARGUMENTS per @docs/guide.md"), "@notes.txt and ./@notes.txt", d);
    expect(all.text).toBe("Review @notes.txt and ./@notes.txt per @docs/guide.md\n\nContents of @docs/guide.md:\n```\nthe guide\n```");
    const positional = await renderCommand(claude("Compare $1 with $2"), "@notes.txt @../etc/passwd.txt", d);
    expect(positional.text).toBe("Compare @notes.txt with @../etc/passwd.txt");
    const appended = await renderCommand(claude("Plain text."), "@notes.txt", d);
    expect(appended.text).toBe("Plain text.\n\nARGUMENTS: @notes.txt");
    const shell = await renderCommand(claude("Last: !`git log -1`"), "", d);
    expect(shell.text).toBe("Last: see @notes.txt");
    const gem = await renderCommand(gemini('prompt = "Review {{args}}, rules @{docs/guide.md}"'), "@{notes.txt}", d);
    expect(gem.text).toBe("Review @{notes.txt}, rules the guide");
    const gemAppended = await renderCommand(gemini('prompt = "Review"'), "@{notes.txt}", d);
    expect(gemAppended.text).toBe("Review\n\n@{notes.txt}");
    expect(reads).toEqual(["docs/guide.md", "docs/guide.md"]);
    for (const r of [all, positional, appended, shell, gem, gemAppended]) expect(r.text).not.toContain("private notes");
  });

  it("Claude: arguments are appended when the template does not use them; !`cmd` output and @file contents are included", async () => {
    const cmd = claude("Status: !`git status --short`\nDenied: !`rm -rf /`\nReview @src/a.ts and @missing.ts, not me@example.com.");
    const d = deps({ "src/a.ts": "export const a = 1;" }, { "git status --short": " M src/a.ts\n" });
    const r = await renderCommand(cmd, "carefully", d);
    expect(d.ran).toEqual(["git status --short", "rm -rf /"]);
    expect(r.text).toContain("Status:  M src/a.ts\n");
    expect(r.text).toContain("Denied: [output of `rm -rf /` not included: not allowed by allowed-tools]");
    expect(r.text).toContain("Contents of @src/a.ts:\n```\nexport const a = 1;\n```");
    expect(r.text).toContain("Contents of @missing.ts:\n```\n[contents of missing.ts not included: no such file]\n```");
    expect(r.text).not.toContain("@example.com:");
    expect(r.text).toMatch(/ARGUMENTS: carefully\n\nContents of @src\/a\.ts/);
    expect(r.shell).toEqual([
      { command: "git status --short", ok: true },
      { command: "rm -rf /", ok: false },
    ]);
    expect(r.files).toEqual(["src/a.ts"]);
  });

  it("Gemini: {{args}}, shell-quoted inside !{…}, @{file}, nested braces, and appended arguments", async () => {
    const cmd = gemini(
      'description = "Search"\nprompt = """\nFind {{args}}.\nHits: !{grep -r {{args}} src | awk \'{print $1}\'}\nRules: @{docs/rules.md}\n"""\n',
    );
    expect(cmd.description).toBe("Search");
    const d = deps({ "docs/rules.md": "be kind" }, { "grep -r 'it'\\''s' src | awk '{print $1}'": "src/a.ts" });
    const r = await renderCommand(cmd, "it's", d);
    expect(d.ran).toEqual(["grep -r 'it'\\''s' src | awk '{print $1}'"]);
    expect(r.text).toBe("Find it's.\nHits: src/a.ts\nRules: be kind\n");
    const plain = gemini('prompt = "Summarize the repo."');
    expect((await renderCommand(plain, "briefly", deps())).text).toBe("Summarize the repo.\n\nbriefly");
  });

  it("Gemini: {{args}} inside quotes in !{…} stays literal text; one where no quoting holds is not run", async () => {
    const hostile = '$(touch PWN)`touch PWN`"';
    const cmd = gemini(`prompt = """\nA: !{grep -r "{{args}}" src}\nB: !{grep -r 'x {{args}}' src}\nC: !{echo \\\\{{args}}}\n"""\n`);
    const a = `grep -r "\\$(touch PWN)\\\`touch PWN\\\`\\"" src`;
    const b = `grep -r 'x $(touch PWN)\`touch PWN\`"' src`;
    const d = deps({}, { [a]: "hit a", [b]: "hit b" });
    const r = await renderCommand(cmd, hostile, d);
    expect(d.ran).toEqual([a, b]);
    expect(r.text).toContain("A: hit a\nB: hit b\nC: [output of `echo \\{{args}}` not included: {{args}} stands where keel cannot quote the arguments safely");
    expect(r.shell.at(-1)).toEqual({ command: "echo \\'$(touch PWN)`touch PWN`\"'", ok: false });
  });

  it("reports bad files: no body, invalid TOML, no prompt", () => {
    expect(parseClaudeCommand("---\ndescription: x\n---\n   \n", "x", origin).issues[0]!.message).toMatch(/no prompt text/);
    expect(parseGeminiCommand("prompt = ", "x", origin).issues[0]!.message).toMatch(/not valid TOML/);
    expect(parseGeminiCommand('description = "d"', "x", origin).issues[0]!.message).toMatch(/needs a "prompt"/);
    expect(parseClaudeCommand("", "x", origin).issues).toEqual([{ severity: "warning", message: "The command file is empty; it was skipped." }]);
    expect(parseGeminiCommand(" \n", "x", origin).issues[0]!.severity).toBe("warning");
    expect(shellWords(`a "b c" 'd e' f\\"g`)).toEqual(["a", "b c", "d e", 'f\\"g']);
  });

  it("refuses, before building it, a prompt a command makes too long of its arguments; reads no file past the limit", async () => {
    const args = "x".repeat(100);
    await expect(renderCommand(claude("$ARGUMENTS ".repeat(50)), args, deps(), 1000)).rejects.toThrow(
      "The command /ws/.claude/commands/x.md renders to a prompt of more than 1000 characters",
    );
    await expect(renderCommand(claude("!`echo $ARGUMENTS $ARGUMENTS`\n".repeat(20)), args, deps(), 1000)).rejects.toThrow("more than 1000 characters");
    await expect(renderCommand(gemini(`prompt = "${"{{args}} ".repeat(50)}"`), args, deps(), 1000)).rejects.toThrow("more than 1000 characters");
    await expect(renderCommand(gemini(`prompt = "!{echo ${"{{args}} ".repeat(50)}}"`), args, deps(), 1000)).rejects.toThrow("more than 1000 characters");
    // one file named many ways: read while the prompt has room, then one note for the rest
    const reads: string[] = [];
    const d = deps({ "a.md": "y".repeat(600) });
    const read = d.readFile;
    d.readFile = async (path) => (reads.push(path), read(path === "a.md" ? path : "a.md"));
    const refs = Array.from({ length: 100 }, (_, i) => `@d${i}/../a.md`).join(" ");
    const r = await renderCommand(claude(`Review @a.md ${refs}`), "", d, 2000);
    expect(reads).toEqual(["a.md", "d0/../a.md"]);
    expect(r.text.length).toBeLessThan(2300);
    expect(r.text).toContain("Contents of @a.md:\n```\nyyy");
    expect(r.text).toContain("[100 of the command's @file references (from @d0/../a.md on) not included: the prompt would be longer than 2000 characters");
    await expect(renderCommand(gemini(`prompt = "${"@{a.md} ".repeat(100)}"`), "", d, 1000)).rejects.toThrow("more than 1000 characters");
    expect(reads.length).toBeLessThan(10);
  });
});
