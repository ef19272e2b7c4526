import { describe, expect, it } from "vitest";
import { translateClaudeRule, translatePermissionBlock, translatePermissionRules, type PermissionList } from "../../../core/config/claude-rules.js";
import { claudeDenyRead } from "../../../core/config/claude-sandbox.js";
import { PermissionPolicy } from "../../../core/permissions.js";
import { builtinToolDefinitions } from "../../../core/tools/builtin-tools.js";
import type { ToolDefinition } from "../../../core/types.js";
import * as unbash from "unbash";

/** A policy with the shell parser loaded (the pipeline loads it with `await policy.ready()`). */
function policy(...args: ConstructorParameters<typeof PermissionPolicy>): PermissionPolicy {
  const p = new PermissionPolicy(...args);
  p.useShellParser(unbash);
  return p;
}

const ROOT = "/ws";
const TOOLS = new Map(builtinToolDefinitions().map((t) => [t.name, t]));
const MCP_TOOL: ToolDefinition = {
  ...TOOLS.get("grep")!,
  name: "mcp__github__search",
  source: { kind: "mcp", id: "github" },
  risk: ["network"],
  permissionKey: undefined,
  permissionMatch: undefined,
};

/** The keel rules for one Claude Code rule (asserting there is no warning). */
function rules(rule: string, list: PermissionList = "deny"): string[] {
  const t = translateClaudeRule(rule, list);
  expect(t.warning).toBeUndefined();
  return t.rules;
}

/** The warning for a rule keel cannot translate (asserting it produced no rules). */
function warning(rule: string, list: PermissionList = "deny", dialect?: "claude" | "mixed"): string {
  const t = translateClaudeRule(rule, list, { dialect });
  expect(t.rules).toEqual([]);
  expect(t.warning).toContain(`"${rule}" was not translated`);
  return t.warning!;
}

/** A policy built from translated Claude Code rules, deciding one call of a real built-in tool. */
function decide(block: { allow?: string[]; ask?: string[]; deny?: string[] }, tool: string, input: Record<string, unknown>): string {
  const { rules: r } = translatePermissionBlock(block);
  const def = tool === MCP_TOOL.name ? MCP_TOOL : TOOLS.get(tool)!;
  return policy(r).decide(tool, def, input, ROOT, ROOT).action;
}

describe("translateClaudeRule: Bash", () => {
  it("maps the bare tool and Bash(*) to bash", () => {
    expect(rules("Bash")).toEqual(["bash"]);
    expect(rules("Bash(*)")).toEqual(["bash"]);
  });

  it("reads the legacy :* suffix as a prefix with a word boundary: the bare command, or it followed by a space", () => {
    expect(rules("Bash(npm run test:*)")).toEqual(["bash(npm run test)", "bash(npm run test *)"]);
    expect(rules("Bash(curl:*)")).toEqual(["bash(curl)", "bash(curl *)"]);
    expect(rules("Bash(timeout:*)")).toEqual(["bash(timeout)", "bash(timeout *)"]);
    expect(rules("Bash(git * main:*)")).toEqual(["bash(git * main *)"]);
    expect(rules("Bash(git:* push)")).toEqual(["bash(git:* push)"]);
  });

  it("keeps exact commands exact and * anywhere as any text; a lone trailing ` *` also matches the bare command", () => {
    expect(rules("Bash(git status)")).toEqual(["bash(git status)"]);
    expect(rules("Bash(npm *)")).toEqual(["bash(npm)", "bash(npm *)"]);
    expect(rules("Bash(ls*)")).toEqual(["bash(ls*)"]);
    expect(rules("Bash(git * main)")).toEqual(["bash(git * main)"]);
    expect(rules("Bash(* --version)")).toEqual(["bash(* --version)"]);
    expect(rules("Bash(* --help *)")).toEqual(["bash(* --help *)"]);
  });

  it("warns about parameter rules and empty patterns", () => {
    expect(warning("Bash(run_in_background:true)")).toContain("parameter rule");
    expect(warning("Bash(command:rm *)")).toContain("parameter rule");
    expect(warning("Bash()")).toContain("empty");
  });

  it("denies what Claude Code denies when fed to PermissionPolicy", () => {
    const deny = { deny: ["Bash(curl:*)"] };
    expect(decide(deny, "bash", { command: "curl --version" })).toBe("deny");
    expect(decide(deny, "bash", { command: "curl" })).toBe("deny");
    expect(decide(deny, "bash", { command: "echo hi && curl -s x | sh" })).toBe("deny");
    expect(decide(deny, "bash", { command: "curlx --version" })).toBe("ask");
    expect(decide(deny, "bash", { command: "echo curl" })).toBe("ask");
  });

  it("allows what Claude Code allows, and no compound command", () => {
    const allow = { allow: ["Bash(npm run test:*)", "Bash(ls *)", "Bash(git status)"] };
    expect(decide(allow, "bash", { command: "npm run test" })).toBe("allow");
    expect(decide(allow, "bash", { command: "npm run test --watch" })).toBe("allow");
    expect(decide(allow, "bash", { command: "npm run testx" })).toBe("ask");
    expect(decide(allow, "bash", { command: "npm run test && rm -rf x" })).toBe("ask");
    expect(decide(allow, "bash", { command: "ls" })).toBe("allow");
    expect(decide(allow, "bash", { command: "ls -la" })).toBe("allow");
    expect(decide(allow, "bash", { command: "lsof" })).toBe("ask");
    expect(decide(allow, "bash", { command: "git status" })).toBe("allow");
    expect(decide(allow, "bash", { command: "git status --short" })).toBe("ask");
  });
});

describe("translateClaudeRule: Read, Edit, Write and the file tools", () => {
  it("applies Read to every keel tool that reads files, and a path-scoped Read deny to edits and writes too", () => {
    expect(rules("Read")).toEqual(["read_file", "list_dir", "glob", "grep"]);
    expect(rules("Read(./.env)", "ask")).toEqual(["read_file(**/.env/**)", "list_dir(**/.env/**)", "glob(**/.env/**)", "grep(**/.env/**)"]);
    expect(rules("Read(./.env)", "deny")).toEqual([
      "read_file(**/.env/**)",
      "list_dir(**/.env/**)",
      "glob(**/.env/**)",
      "grep(**/.env/**)",
      "edit_file(**/.env/**)",
      "write_file(**/.env/**)",
    ]);
  });

  it("applies Edit to edit_file and write_file; Write, MultiEdit, Grep, Glob and LS to their keel tools", () => {
    expect(rules("Edit")).toEqual(["edit_file", "write_file"]);
    expect(rules("Edit(src/**)", "allow")).toEqual(["edit_file(src/**)", "write_file(src/**)"]);
    expect(rules("Write")).toEqual(["write_file"]);
    expect(rules("Write(docs/**)", "allow")).toEqual(["write_file(docs/**)"]);
    expect(rules("MultiEdit")).toEqual(["edit_file"]);
    expect(rules("MultiEdit(/a.ts)")).toEqual(["edit_file(a.ts/**)"]);
    expect(rules("Grep")).toEqual(["grep"]);
    expect(rules("Glob")).toEqual(["glob"]);
    expect(rules("LS")).toEqual(["list_dir"]);
    expect(rules("Grep(src/**)", "allow")).toEqual(["grep(src/**)"]);
    expect(rules("Glob(src/**)", "ask")).toEqual(["glob(**/src/**)"]);
    expect(rules("LS(build)", "ask")).toEqual(["list_dir(**/build/**)"]);
  });

  it("reads paths with gitignore semantics relative to the project root", () => {
    expect(rules("Read(.env)")[0]).toBe("read_file(**/.env/**)");
    expect(rules("Read(/.env)")[0]).toBe("read_file(.env/**)");
    expect(rules("Read(*.env)")[0]).toBe("read_file(**/*.env/**)");
    expect(rules("Read(src/)")[0]).toBe("read_file(**/src/**)");
    expect(rules("Read(src)")[0]).toBe("read_file(**/src/**)");
    expect(rules("Read(config/app.json)")[0]).toBe("read_file(config/app.json/**)");
    expect(rules("Edit(/src/**/*.ts)")[0]).toBe("edit_file(src/**/*.ts/**)");
    expect(rules("Read(**/secrets/**)")[0]).toBe("read_file(**/secrets/**)");
    expect(rules("Read(./**)", "allow")[0]).toBe("read_file(**)");
    expect(rules("Read({a,b}.txt)")[0]).toBe("read_file(**/\\{a,b\\}.txt/**)");
  });

  it("matches a single directory segment followed by /** at any depth in deny and ask lists, only at the root in allow lists", () => {
    expect(rules("Read(secrets/**)", "deny")[0]).toBe("read_file(**/secrets/**)");
    expect(rules("Read(secrets/**)", "ask")[0]).toBe("read_file(**/secrets/**)");
    expect(rules("Edit(src/**)", "allow")[0]).toBe("edit_file(src/**)");
    expect(rules("Edit(src/components/**)", "deny")[0]).toBe("edit_file(src/components/**)");
  });

  it("translates //**/x (anywhere on the filesystem) to **/x inside the workspace", () => {
    expect(rules("Read(//**/.env)")[0]).toBe("read_file(**/.env/**)");
  });

  it("warns, never silently drops, paths keel's workspace-relative rules cannot express", () => {
    expect(warning("Read(//etc/passwd)")).toContain("absolute path");
    expect(warning("Edit(//tmp/scratch.txt)", "ask")).toContain("absolute path");
    expect(warning("Read(~/.ssh/**)")).toContain("home-directory");
    expect(warning("Read(~/.zshrc)", "allow")).toContain("home-directory");
    expect(warning("Read(../sibling/x)")).toContain("..");
    expect(warning("Read(!keep.txt)")).toContain("negated");
    expect(warning("Read()")).toContain("empty");
    expect(warning("Read(file_path:/etc/passwd)")).toContain("parameter rule");
    expect(warning("Edit(replace_all:true)")).toContain("parameter rule");
  });

  it("denies the files Claude Code denies when fed to PermissionPolicy", () => {
    const deny = { deny: ["Read(./.env)", "Read(secrets/**)", "Edit(/src/**/*.ts)"] };
    expect(decide(deny, "read_file", { path: ".env" })).toBe("deny");
    expect(decide(deny, "read_file", { path: "config/.env" })).toBe("deny");
    expect(decide(deny, "read_file", { path: ".envrc" })).toBe("allow");
    expect(decide(deny, "read_file", { path: "/ws/.env" })).toBe("deny");
    expect(decide(deny, "grep", { pattern: "KEY", path: ".env" })).toBe("deny");
    expect(decide(deny, "list_dir", { path: "secrets" })).toBe("deny");
    expect(decide(deny, "glob", { pattern: "*", path: "vendor/secrets/keys" })).toBe("deny");
    expect(decide(deny, "write_file", { path: ".env", content: "" })).toBe("deny");
    expect(decide(deny, "edit_file", { path: "app/.env", old_string: "a", new_string: "b" })).toBe("deny");
    expect(decide(deny, "edit_file", { path: "src/a/b.ts", old_string: "a", new_string: "b" })).toBe("deny");
    expect(decide(deny, "write_file", { path: "src/b.ts", content: "" })).toBe("deny");
    expect(decide(deny, "write_file", { path: "lib/src/b.ts", content: "" })).toBe("ask");
    expect(decide(deny, "read_file", { path: "src/b.ts" })).toBe("allow");
  });

  it("treats a directory pattern as covering everything under it (gitignore semantics)", () => {
    const deny = { deny: ["Read(build)", "Edit(/dist/)"] };
    expect(decide(deny, "read_file", { path: "build" })).toBe("deny");
    expect(decide(deny, "read_file", { path: "build/out/app.js" })).toBe("deny");
    expect(decide(deny, "read_file", { path: "pkg/build/app.js" })).toBe("deny");
    expect(decide(deny, "read_file", { path: "builder.js" })).toBe("allow");
    expect(decide(deny, "write_file", { path: "dist/app.js", content: "" })).toBe("deny");
    expect(decide(deny, "write_file", { path: "pkg/dist/app.js", content: "" })).toBe("ask");
  });

  it("allows only at the anchored location in allow lists", () => {
    const allow = { allow: ["Edit(src/**)"] };
    expect(decide(allow, "write_file", { path: "src/a.ts", content: "" })).toBe("allow");
    expect(decide(allow, "edit_file", { path: "src/deep/a.ts", old_string: "a", new_string: "b" })).toBe("allow");
    expect(decide(allow, "write_file", { path: "vendor/src/a.ts", content: "" })).toBe("ask");
    expect(decide(allow, "write_file", { path: "lib/a.ts", content: "" })).toBe("ask");
  });
});

describe("translateClaudeRule: MCP", () => {
  it("maps a whole server to its tools and keeps tool names and globs", () => {
    expect(rules("mcp__github")).toEqual(["mcp__github__*"]);
    expect(rules("mcp__github__*")).toEqual(["mcp__github__*"]);
    expect(rules("mcp__github__search")).toEqual(["mcp__github__search"]);
    expect(rules("mcp__github__get_*", "allow")).toEqual(["mcp__github__get_*"]);
    expect(rules("mcp__*")).toEqual(["mcp__*"]);
  });

  it("warns about specifiers, malformed names and (in Claude settings) unanchored allow globs", () => {
    expect(warning("mcp__github__search(query:x)")).toContain("no specifier");
    expect(warning("mcp__")).toContain("mcp__<server>");
    expect(warning("mcp__*", "allow", "claude")).toContain("literal `mcp__<server>__` prefix");
    expect(warning("mcp__git*__search", "allow", "claude")).toContain("literal `mcp__<server>__` prefix");
    expect(translateClaudeRule("mcp__*", "allow").rules).toEqual(["mcp__*"]);
  });

  it("denies every tool of a server named alone", () => {
    expect(decide({ deny: ["mcp__github"] }, MCP_TOOL.name, {})).toBe("deny");
    expect(decide({ deny: ["mcp__gitlab"] }, MCP_TOOL.name, {})).toBe("ask");
  });
});

describe("translateClaudeRule: rules keel cannot translate", () => {
  it("warns, naming the rule and why, for Claude Code tools keel has no counterpart for", () => {
    expect(warning("WebFetch(domain:example.com)")).toContain("web fetch");
    expect(warning("WebFetch")).toContain("web fetch");
    expect(warning("WebSearch", "ask")).toContain("web search");
    expect(warning("Task(Explore)")).toContain("subagent");
    expect(warning("Agent(Explore)")).toContain("subagent");
    expect(warning("NotebookEdit(docs/**)")).toContain("notebook");
    expect(warning("FooBar")).toContain("not a Claude Code tool");
    expect(warning("WebFetch(domain:example.com)")).toContain("It has no effect in keel.");
  });

  it("warns about malformed Claude Code rules", () => {
    expect(warning("Bash(ls")).toContain("of the form");
    expect(warning("Read (x)")).toContain("of the form");
    expect(warning("  ")).toContain("empty");
  });

  it("expands a glob over Claude Code tool names in deny and ask lists, and skips it in allow lists as Claude Code does", () => {
    expect(rules("B*")).toEqual(["bash"]);
    expect(rules("*Edit", "ask")).toEqual(["edit_file", "write_file"]);
    expect(warning("Web*")).toContain("matches no Claude Code tool");
    expect(warning("B*", "allow")).toContain("literal `mcp__<server>__` prefix");
  });
});

describe("translateClaudeRule: keel rules", () => {
  it("passes keel rules through unchanged, so legacy files may mix both styles", () => {
    for (const r of ["bash", "bash(git status*)", "read_file(.env)", "write_file(src/**)", "task_*", "*", "mcp_call_tool", "has space(x)"])
      expect(translateClaudeRule(r, "deny")).toEqual({ rules: [r] });
    expect(translateClaudeRule("  bash(ls)  ", "allow")).toEqual({ rules: ["bash(ls)"] });
  });

  it("skips unanchored allow globs only in Claude Code settings", () => {
    expect(translateClaudeRule("task_*", "allow")).toEqual({ rules: ["task_*"] });
    expect(warning("task_*", "allow", "claude")).toContain("skips this one");
    expect(warning("*", "allow", "claude")).toContain("skips this one");
    expect(translateClaudeRule("*", "deny", { dialect: "claude" })).toEqual({ rules: ["*"] });
  });

  it("only ever names keel's real built-in tools", () => {
    const all = ["Bash", "Read", "Edit", "Write", "MultiEdit", "Grep", "Glob", "LS", "Read(x)", "Edit(x)", "B*", "*Edit", "G*"].flatMap(
      (r) => translateClaudeRule(r, "deny").rules,
    );
    for (const r of all) expect(TOOLS.has(r.replace(/\(.*$/s, ""))).toBe(true);
  });
});

describe("translatePermissionRules / translatePermissionBlock", () => {
  it("translates a list in order, drops duplicates and locates warnings by index", () => {
    const t = translatePermissionRules(["Bash(curl:*)", "bash(curl)", 7, "WebSearch", "Grep"], "deny");
    expect(t.rules).toEqual(["bash(curl)", "bash(curl *)", "grep"]);
    expect(t.warnings.map((w) => w.index)).toEqual([2, 3]);
    expect(t.warnings[0]!.message).toContain("must be a string");
  });

  it("translates a whole block with warnings naming list, index and rule", () => {
    const t = translatePermissionBlock(
      { allow: ["Bash(npm run test:*)", "*"], ask: ["WebFetch"], deny: ["Read(./.env)", "Bash(curl:*)", "Read(//etc/shadow)"] },
      { dialect: "claude" },
    );
    expect(t.rules.deny).toContain("read_file(**/.env/**)");
    expect(t.rules.deny).toContain("bash(curl *)");
    expect(t.rules.allow).toEqual(["bash(npm run test)", "bash(npm run test *)"]);
    expect(t.rules.ask).toEqual([]);
    expect(t.warnings.map((w) => w.path)).toEqual(["permissions.deny[2]", "permissions.ask[0]", "permissions.allow[1]"]);
    expect(t.warnings[0]).toMatchObject({ list: "deny", index: 2, rule: "Read(//etc/shadow)" });
    expect(t.warnings[0]!.message).toContain("was not translated");
  });

  it("treats missing or non-list entries as empty", () => {
    expect(translatePermissionBlock({ deny: "Bash" })).toEqual({ rules: { deny: [], ask: [], allow: [] }, warnings: [] });
  });
});

describe("a nested project's rules (.claude/ below the workspace root)", () => {
  const scoped = (rule: string, list: PermissionList) => translateClaudeRule(rule, list, { dialect: "claude", scope: "packages/api" }).rules[0];

  it("puts paths relative to the project under its folder", () => {
    expect(scoped("Read(/b.txt)", "deny")).toBe("read_file(packages/api/b.txt/**)");
    expect(scoped("Edit(src/lib/**)", "allow")).toBe("edit_file(packages/api/src/lib/**)");
    expect(scoped("Read(./config/prod.json)", "ask")).toBe("read_file(packages/api/config/prod.json/**)");
  });

  it("keeps a deny or ask pattern that matches at any depth workspace-wide (stricter), and scopes such an allow to the folder", () => {
    expect(scoped("Read(.env)", "deny")).toBe("read_file(**/.env/**)");
    expect(scoped("Read(secrets/**)", "ask")).toBe("read_file(**/secrets/**)");
    expect(scoped("Read(**)", "deny")).toBe("read_file(**)");
    expect(scoped("Read(.env)", "allow")).toBe("read_file(packages/api/**/.env/**)");
    expect(scoped("Read(**)", "allow")).toBe("read_file(packages/api/**)");
    expect(scoped("Bash(ls:*)", "allow")).toBe("bash(ls)");
  });

  it("matches the folder's name literally", () => {
    expect(translateClaudeRule("Read(/x)", "deny", { scope: "pkgs/[a]*" }).rules[0]).toBe("read_file(pkgs/\\[a\\]\\*/x/**)");
  });

  it("hides a sandbox denyRead path relative to the project under its folder", () => {
    const settings = { sandbox: { filesystem: { denyRead: ["secrets", "./keys/**", "//etc/x", "~/y"] } } };
    expect(claudeDenyRead(settings, "/w/packages/api/.claude/settings.json", "packages/api").paths).toEqual([
      "packages/api/secrets",
      "packages/api/keys",
      "/etc/x",
      "~/y",
    ]);
  });
});
