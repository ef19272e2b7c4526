import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ASK_USER_TO_TRUST, forModel, modelReads, orTrustOnce, TRUST_ONCE } from "../../core/trust-hint.js";

describe("trust hints: the user's wording and the model's", () => {
  it("forModel puts ASK_USER_TO_TRUST in place of every way to trust for one run, and leaves other text as it is", () => {
    for (const clause of Object.values(TRUST_ONCE)) {
      expect(clause).toMatch(/--trust/);
      const message = `Run \`keel trust\`${clause} to use them.`;
      expect(forModel(message)).toBe(`Run \`keel trust\`${ASK_USER_TO_TRUST} to use them.`);
      expect(forModel(message)).toBe(`Run \`keel trust\`${orTrustOnce(true, clause)} to use them.`);
    }
    // One clause ends with another: the longer one is replaced whole.
    expect(forModel(`x${TRUST_ONCE.persistentOrOnce}.`)).toBe(`x${ASK_USER_TO_TRUST}.`);
    expect(forModel("grep -- --trust README.md")).toBe("grep -- --trust README.md");
  });

  it("modelReads: the user's command line and an embedding program read the user's wording; anyone else (a model) the model's", () => {
    for (const origin of [undefined, "cli", "api", "embed"]) expect(modelReads({ origin })).toBe(false);
    for (const origin of ["agent", "sub-agent", "mcp-serve", "workflow:a>b", "command:status", "someone"]) expect(modelReads({ origin })).toBe(true);
    // A workflow's steps say who reads them: the user who ran `keel workflow run`, or the model that called workflow_run.
    expect(modelReads({ origin: "workflow:a", readByModel: false })).toBe(false);
    expect(modelReads({ origin: "cli", readByModel: true })).toBe(true);
  });

  it("every message naming a way to trust for one run takes it from TRUST_ONCE (so forModel knows it), but for the user's own commands' output", () => {
    const repo = fileURLToPath(new URL("../../", import.meta.url));
    // What only the user's terminal prints (keel mcp list, keel plugins, keel doctor, the refusal of --trust under KEEL_CALL), and code that reads the flag.
    const userOnly = new Set([
      "core/trust-hint.ts",
      "core/cli/chat-argv.ts",
      "core/cli/your-terminal-only.ts",
      "runtimes/mcp/mcp-commands.ts",
      "plugins/plugins-command.ts",
      "runtimes/doctor/config-checks.ts",
      "lib/embed-options.ts",
      "bin/cli.ts",
    ]);
    const files = (dir: string): string[] =>
      readdirSync(join(repo, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
      );
    const found: string[] = [];
    for (const file of ["core", "manifests", "plugins", "runtimes", "lib", "bin"].flatMap(files)) {
      if (userOnly.has(relative(repo, join(repo, file)))) continue;
      readFileSync(join(repo, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
          if (/["'`][^"'`]*(--trust\b|KEEL_TRUST=)/.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
