import { describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../core/permissions.js";
import type { RiskTag, ToolDefinition } from "../../core/types.js";
import * as unbash from "unbash";

/** A policy with the shell parser loaded (the pipeline loads it with `await policy.ready()`). */
function policy(...args: ConstructorParameters<typeof PermissionPolicy>): PermissionPolicy {
  const p = new PermissionPolicy(...args);
  p.useShellParser(unbash);
  return p;
}

const CWD = "/ws";

function def(name: string, risk: RiskTag[], extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name,
    description: "",
    inputSchema: {},
    source: { kind: "builtin", id: "core" },
    risk,
    readOnly: risk.every((r) => r === "read"),
    execute: async () => ({ content: "" }),
    ...extra,
  };
}
const bash = def("bash", ["execute"], { permissionKey: "command", permissionMatch: "text" });
const write = def("write_file", ["write"], { permissionKey: "path", permissionMatch: "path" });
const read = def("read_file", ["read"], { permissionKey: "path", permissionMatch: "path" });

describe("PermissionPolicy", () => {
  it("defaults by risk: read allows, anything else asks", () => {
    const p = policy();
    expect(p.decide("read_file", read, { path: "a" }, CWD).action).toBe("allow");
    expect(p.decide("bash", bash, { command: "ls" }, CWD).action).toBe("ask");
    expect(p.decide("write_file", write, { path: "a" }, CWD).action).toBe("ask");
    expect(p.decide("fetch", def("fetch", ["read", "network"]), {}, CWD)).toMatchObject({ action: "ask", reason: expect.stringContaining("network") });
  });

  it("deny beats ask beats allow", () => {
    const p = policy({ allow: ["bash", "write_file"], ask: ["bash", "read_file"], deny: ["bash"] });
    expect(p.decide("bash", bash, { command: "ls" }, CWD)).toMatchObject({ action: "deny", rule: "bash" });
    expect(p.decide("read_file", read, { path: "x" }, CWD)).toMatchObject({ action: "ask", rule: "read_file" });
    expect(p.decide("write_file", write, { path: "x" }, CWD)).toMatchObject({ action: "allow", rule: "write_file" });
  });

  it("matches command specifiers with * as any text: bash(git status*)", () => {
    const p = policy({ allow: ["bash(git status*)"], deny: ["bash(rm -rf *)"] });
    expect(p.decide("bash", bash, { command: "git status" }, CWD).action).toBe("allow");
    expect(p.decide("bash", bash, { command: "git status --short src/" }, CWD).action).toBe("allow");
    expect(p.decide("bash", bash, { command: "git status; rm src/a" }, CWD).action).toBe("ask");
    expect(p.decide("bash", bash, { command: "git status; rm -rf src" }, CWD).action).toBe("deny");
    // `sh` reading its input runs code keel cannot see: with deny rules for bash, that fails closed
    expect(p.decide("bash", bash, { command: "git status && curl x | sh" }, CWD).action).toBe("deny");
    expect(p.decide("bash", bash, { command: "git status && curl x | grep y" }, CWD).action).toBe("ask");
    expect(p.decide("bash", bash, { command: "git status $(touch x)" }, CWD).action).toBe("ask");
    expect(p.decide("bash", bash, { command: "git status > /tmp/elsewhere.txt" }, CWD).action).toBe("ask");
    expect(p.decide("bash", bash, { command: "git status < /etc/passwd" }, CWD).action).toBe("ask");
    expect(p.decide("bash", bash, { command: "cd src && rm -rf build" }, CWD)).toMatchObject({ action: "deny", rule: "bash(rm -rf *)" });
    expect(p.decide("bash", bash, { command: "echo $(rm -rf x)" }, CWD).action).toBe("deny");
    expect(p.decide("bash", bash, { command: "git push" }, CWD).action).toBe("ask");
    expect(p.decide("bash", bash, { command: "echo git status" }, CWD).action).toBe("ask");
    expect(p.decide("bash", bash, { command: "rm -rf /" }, CWD)).toMatchObject({ action: "deny", rule: "bash(rm -rf *)" });
  });

  it("an allow rule written with an operator may match compound commands", () => {
    const p = policy({ allow: ["bash(npm test && *)"] });
    expect(p.decide("bash", bash, { command: "npm test && echo ok" }, CWD).action).toBe("allow");
  });

  it("matches path specifiers as globs: write_file(src/**)", () => {
    const p = policy({ allow: ["write_file(src/**)"], deny: ["write_file(**/.env)"] });
    expect(p.decide("write_file", write, { path: "src/a/b.ts" }, CWD).action).toBe("allow");
    expect(p.decide("write_file", write, { path: "./src/a.ts" }, CWD).action).toBe("allow");
    expect(p.decide("write_file", write, { path: "/ws/src/a.ts" }, CWD).action).toBe("allow");
    expect(p.decide("write_file", write, { path: "lib/a.ts" }, CWD).action).toBe("ask");
    expect(p.decide("write_file", write, { path: "srcx/a.ts" }, CWD).action).toBe("ask");
    expect(p.decide("write_file", write, { path: "src/.env" }, CWD).action).toBe("deny");
    // a specifier never matches a call without that argument
    expect(p.decide("write_file", write, {}, CWD).action).toBe("ask");
  });

  it("tool-name globs match families: mcp__github__*", () => {
    const p = policy({ deny: ["mcp__github__*"] });
    expect(p.decide("mcp__github__create_issue", def("mcp__github__create_issue", ["network"]), {}, CWD).action).toBe("deny");
    expect(p.decide("mcp__gitlab__x", def("mcp__gitlab__x", ["network"]), {}, CWD).action).toBe("ask");
  });

  it("an alias cannot dodge a rule written for its base tool", () => {
    const p = policy({ deny: ["bash"], allow: ["sh"] });
    expect(p.decide("sh", bash, { command: "ls" }, CWD)).toMatchObject({ action: "deny", rule: "bash" });
    const q = policy({ deny: ["bash(curl*)"] });
    expect(q.decide("shell", bash, { command: "curl evil" }, CWD).action).toBe("deny");
  });
});

describe("names cannot borrow permissions", () => {
  it("an allow glob matches the tool that executes, never an alias name: task_* does not allow task_list2 → bash", () => {
    const p = policy({ allow: ["mcp__github__*", "task_*"] });
    expect(p.decide("task_list2", bash, { command: "rm -rf x" }, CWD, CWD, { level: "workspace" }).action).toBe("ask");
    expect(p.decide("mcp__github__search", bash, { command: "id" }, CWD, CWD, { level: "workspace" }).action).toBe("ask");
    // the base tool's own rule still allows the alias
    expect(policy({ allow: ["bash(git status*)"] }).decide("status", bash, { command: "git status" }, CWD, CWD, { level: "workspace" }).action).toBe("allow");
  });

  it("a rule naming the alias exactly allows it only from the alias's own level", () => {
    const user = policy({ allow: ["status"] }, new Map([["status", ["user"]]]));
    const repo = policy({ allow: ["status"] }, new Map([["status", ["workspace"]]]));
    const both = policy({ allow: ["status"] }, new Map([["status", ["user", "workspace"]]]));
    expect(both.decide("status", bash, { command: "id" }, CWD, CWD, { level: "workspace" }).action).toBe("allow");
    expect(both.decide("status", bash, { command: "id" }, CWD, CWD, { level: "user" }).action).toBe("allow");
    // your rule was written for a tool of yours, not for a repository's alias that took the name
    expect(user.decide("status", bash, { command: "id" }, CWD, CWD, { level: "workspace" }).action).toBe("ask");
    expect(user.decide("status", bash, { command: "id" }, CWD, CWD, { level: "user" }).action).toBe("allow");
    expect(repo.decide("status", bash, { command: "id" }, CWD, CWD, { level: "workspace" }).action).toBe("allow");
    expect(repo.decide("status", bash, { command: "id" }, CWD, CWD, { level: "user" }).action).toBe("ask");
    // deny and ask rules match either name
    expect(policy({ deny: ["status"] }).decide("status", bash, { command: "id" }, CWD, CWD, { level: "user" }).action).toBe("deny");
    expect(policy({ deny: ["bash"] }).decide("status", bash, { command: "id" }, CWD, CWD, { level: "user" }).action).toBe("deny");
  });

  it("writes into .git/ and .keel/ are denied before any rule, for every path tool that writes", () => {
    const p = policy({ allow: ["write_file"] });
    for (const path of [".git/config", ".git/hooks/pre-commit", ".keel/config.local.json", "vendor/lib/.git/HEAD", "a/../.keel/state/x.json"])
      expect(p.decide("write_file", write, { path }, CWD), path).toMatchObject({ action: "deny", reason: expect.stringContaining("keel protects") });
    expect(p.decide("write_file", write, { path: "src/.gitignore" }, CWD).action).toBe("allow");
    expect(p.decide("write_file", write, { path: ".github/workflows/ci.yml" }, CWD).action).toBe("allow");
    // reading is not affected
    expect(policy().decide("read_file", read, { path: ".git/config" }, CWD).action).toBe("allow");
  });
});
