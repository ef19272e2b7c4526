import { describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

/** Command names listed under "Commands:" in a help text (without `help`). */
function commandsIn(help: string): string[] {
  const section = help.split(/^Commands:$/m)[1] ?? "";
  return [...section.matchAll(/^ {2}([a-z][\w-]*)\b/gm)].map((m) => m[1]!).filter((c) => c !== "help");
}

async function helpOf(ws: TempWorkspace, path: string[]) {
  return runKeel([...path, "--help"], { cwd: ws.root, env: ws.env });
}

describe("--help", () => {
  it("exits 0 for the program, every command and every subcommand", async () => {
    const ws = makeWorkspace();
    try {
      const top = await helpOf(ws, []);
      expect(top.exitCode).toBe(0);
      expect(top.stdout).toContain("Usage: keel");
      const commands = commandsIn(top.stdout);
      expect(commands).toEqual(expect.arrayContaining(["tools", "call", "trust"]));
      const runs = await Promise.all(commands.map((c) => helpOf(ws, [c])));
      const nested: string[][] = [];
      for (const [i, r] of runs.entries()) {
        expect(r.exitCode, `keel ${commands[i]} --help`).toBe(0);
        expect(r.stdout).toContain(`Usage: keel ${commands[i]}`);
        for (const sub of commandsIn(r.stdout)) nested.push([commands[i]!, sub]);
      }
      const subRuns = await Promise.all(nested.map((p) => helpOf(ws, p)));
      for (const [i, r] of subRuns.entries()) {
        expect(r.exitCode, `keel ${nested[i]!.join(" ")} --help`).toBe(0);
        expect(r.stdout).toContain(`Usage: keel ${nested[i]!.join(" ")}`);
      }
      const unknown = await runKeel(["frobnicate"], { cwd: ws.root, env: ws.env });
      expect(unknown.exitCode).toBe(2);
    } finally {
      ws.cleanup();
    }
  });
});
