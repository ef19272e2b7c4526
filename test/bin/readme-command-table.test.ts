import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

/**
 * README's command reference table and `keel --help` cannot drift apart: every command and
 * subcommand the help lists has a row that names it, a top-level command's options are in its row,
 * and a subcommand with a row of its own (`keel mcp serve …`) shows every option it takes.
 */
const README = readFileSync(join(fileURLToPath(new URL("../..", import.meta.url)), "README.md"), "utf8");

/** The first cell of each row of the table under "## Command reference", Markdown escapes removed. */
function tableCells(): string[] {
  const section = README.split(/^## Command reference$/m)[1]!.split(/^## /m)[0]!;
  const table = section.slice(section.indexOf("| command | what it does |"));
  return table
    .split("\n")
    .filter((l) => l.startsWith("| `keel"))
    .map((l) =>
      l
        .split(/(?<!\\)\|/)[1]!
        .replace(/\\\|/g, "|")
        .trim(),
    );
}

/** Command names listed under "Commands:" in a help text (without `help`). */
function commandsIn(help: string): string[] {
  const section = help.split(/^Commands:$/m)[1] ?? "";
  return [...section.matchAll(/^ {2}([a-z][\w-]*)\b/gm)].map((m) => m[1]!).filter((c) => c !== "help");
}

/** Long options listed under "Options:" in a help text (without `--help`). */
function optionsIn(help: string): string[] {
  const section = (help.split(/^Options:$/m)[1] ?? "").split(/^Commands:$/m)[0]!;
  return [...section.matchAll(/^ {2}(?:-\w, )?(--[a-z][\w-]*)/gm)].map((m) => m[1]!).filter((o) => o !== "--help");
}

describe("README's command table", () => {
  let ws: TempWorkspace;
  beforeAll(() => {
    ws = makeWorkspace();
  });
  afterAll(() => ws.cleanup());
  const help = async (path: string[]) => (await runKeel([...path, "--help"], { cwd: ws.root, env: ws.env })).stdout;

  it("names every command, subcommand and option of keel --help", async () => {
    const cells = tableCells();
    expect(cells.length).toBeGreaterThan(15);
    const rowOf = (command: string) => cells.filter((c) => new RegExp(`\`keel ${command}\\b`).test(c)).join(" ");
    const missing: string[] = [];
    for (const command of commandsIn(await help([]))) {
      const row = rowOf(command);
      if (!row) {
        missing.push(`keel ${command}: no row`);
        continue;
      }
      const text = await help([command]);
      for (const option of optionsIn(text)) if (!row.includes(option)) missing.push(`keel ${command} ${option}`);
      for (const sub of commandsIn(text)) {
        if (!new RegExp(`[\\s|\\[]${sub}\\b`).test(row)) missing.push(`keel ${command} ${sub}`);
        const own = cells.find((c) => c.startsWith(`\`keel ${command} ${sub} `));
        if (own) for (const option of optionsIn(await help([command, sub]))) if (!own.includes(option)) missing.push(`keel ${command} ${sub} ${option}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
