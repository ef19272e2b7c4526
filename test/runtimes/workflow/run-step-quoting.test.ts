import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { shellQuote } from "../../../runtimes/workflow/template-values.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace | undefined;
let host: Host | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
  ws?.cleanup();
  ws = undefined;
});

const NASTY = 'ann; touch PWNED1 && echo $(touch PWNED2) `touch PWNED3` it\'s "quoted" | cat > PWNED4 \\ $HOME *';

describe("run steps quote every substituted value as one shell word", () => {
  it("shellQuote writes a single quote as '\\'' inside single quotes", () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote("")).toBe("''");
  });

  it("arguments and step output cannot inject shell syntax; literal template text still works", async () => {
    ws = makeWorkspace({
      ".claw-workflows.json": {
        workflows: [
          {
            name: "q",
            steps: [
              { run: "printf '%s\\n' {who} > who.txt" },
              { id: "r", tool: "read_file", input: { path: "multi.txt" } },
              { run: "echo got: {steps.r.content} > out.txt" },
              { run: "printf '[%s]' {n} {{lit}} > n.txt" },
            ],
          },
        ],
      },
      "multi.txt": "line one\nit's line two; touch PWNED5\n",
    });
    host = await openTestHost(ws, { trust: true });
    const svc = host.service("workflows")!;
    const record = await svc.run("q", { args: { who: NASTY, n: 3 }, yes: true });
    expect(record.status, JSON.stringify(record, null, 2)).toBe("succeeded");
    for (const f of ["PWNED", "PWNED1", "PWNED2", "PWNED3", "PWNED4", "PWNED5"]) expect(ws.exists(f), f).toBe(false);
    expect(ws.read("who.txt")).toBe(`${NASTY}\n`);
    expect(ws.read("out.txt")).toBe("got: line one\nit's line two; touch PWNED5\n\n");
    expect(ws.read("n.txt")).toBe("[3][{lit}]");
  });

  it("the CLI repro: `--arg 'who=ann; touch PWNED'` prints the text and creates nothing", async () => {
    ws = makeWorkspace({ ".claw-workflows.json": { workflows: [{ name: "greet", steps: [{ run: "echo hello {who} > greeting.txt" }] }] } });
    const r = await runKeel(["--trust", "--yes", "workflow", "run", "greet", "--arg", "who=ann; touch PWNED"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(existsSync(ws.path("PWNED"))).toBe(false);
    expect(ws.read("greeting.txt")).toBe("hello ann; touch PWNED\n");
  });

  it("a bash tool step (and an alias of bash) quotes substituted values in its command like a run step: ref=HEAD; touch MARKER", async () => {
    ws = makeWorkspace(
      {
        "plugins/sh/plugin.json": { name: "sh", tool_aliases: [{ name: "shell_run", base_tool: "bash" }] },
        ".claw-workflows.json": {
          workflows: [
            {
              name: "show",
              steps: [
                { tool: "bash", input: { command: "git rev-parse --verify -q {ref} > ref.txt; echo {ref} > echo.txt" } },
                { tool: "shell_run", input: { command: "echo {ref} > alias.txt" } },
                { tool: "write_file", input: { path: "plain.txt", content: "{ref}" } },
              ],
            },
          ],
        },
      },
      { git: true },
    );
    const r = await runKeel(["--trust", "--yes", "workflow", "run", "show", "--arg", "ref=HEAD; touch MARKER"], { cwd: ws.root, env: ws.env });
    expect(ws.exists("MARKER"), r.stdout + r.stderr).toBe(false);
    expect(ws.read("echo.txt")).toBe("HEAD; touch MARKER\n");
    expect(ws.read("alias.txt")).toBe("HEAD; touch MARKER\n");
    expect(ws.read("plain.txt")).toBe("HEAD; touch MARKER"); // not a shell: the value as is
  });
});
