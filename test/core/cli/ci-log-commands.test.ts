import { afterEach, describe, expect, it } from "vitest";
import { runKeelProcess } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// A tool result holding what a CI runner acts on, and characters a terminal hides or reorders.
const HOSTILE =
  "hi \u202egnp.exe\u2066 \u0085 \u200b \u2028 \u{e0041}\n" +
  "::add-mask::secret\n  ::error file=a::boom\n" +
  "x ##vso[task.setvariable variable=TOKEN]y\n##[error]azure\nlegacy ##[set-output name=a]b\n::stop-commands::hostile";
const RAW_INVISIBLE = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/u;

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

function workspace(): TempWorkspace {
  return makeWorkspace({ "plugins/demo/plugin.json": { name: "demo", virtual_tools: [{ name: "say", description: "d", response_template: HOSTILE }] } });
}

/** The commands a GitHub runner would act on in `text` (its stop-commands state, `::` at a line start after blanks, legacy `##[` anywhere). */
function githubCommands(text: string): string[] {
  const acted: string[] = [];
  let stopToken: string | undefined;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (stopToken !== undefined) {
      if (line === `::${stopToken}::`) stopToken = undefined;
      continue;
    }
    const stop = /^::stop-commands::(.+)$/.exec(line.trimStart());
    if (stop) stopToken = stop[1];
    else if (line.trimStart().startsWith("::") || line.includes("##[")) acted.push(line);
  }
  return acted;
}

describe("output in a CI runner's log", () => {
  it("--json keeps the value and shows no raw invisible, C1, bidi or tag character", async () => {
    ws = workspace();
    const run = await runKeelProcess(["--trust", "--json", "call", "say"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode).toBe(0);
    expect(run.json().content).toBe(HOSTILE);
    expect(RAW_INVISIBLE.test(run.stdout), run.stdout).toBe(false);
    expect(run.stdout).toContain("\\u202e");
    expect(run.stdout).toContain("\\udb40\\udc41");
  });

  it("GitHub Actions: keel's output is framed by ::stop-commands::<random token> and ::<token>::, so no line of it is acted on", async () => {
    ws = workspace();
    const env = { ...ws.env, GITHUB_ACTIONS: "true" };
    const first = await runKeelProcess(["--trust", "call", "say"], { cwd: ws.root, env });
    const second = await runKeelProcess(["--trust", "call", "missing_tool"], { cwd: ws.root, env });
    expect(first.exitCode).toBe(0);
    const lines = first.stdout.split("\n");
    const token = /^::stop-commands::([0-9a-f]{32})$/.exec(lines[0]!)?.[1];
    expect(token, first.stdout).toBeDefined();
    expect(lines.at(-1)).toBe(`::${token}::`);
    expect(first.stdout).toContain("::add-mask::secret");
    expect(githubCommands(first.stdout)).toEqual([]);
    // a fresh token each run; stderr is framed on its own
    expect(second.exitCode).toBe(1);
    expect(second.stderr.split("\n")[0]).toMatch(/^::stop-commands::[0-9a-f]{32}$/);
    expect(second.stderr).not.toContain(token);
    expect(githubCommands(second.stderr)).toEqual([]);
  });

  it("GitHub Actions with --json: stdout is JSON with the same value, and neither a ::command:: line nor a legacy ##[command]", async () => {
    ws = workspace();
    const run = await runKeelProcess(["--trust", "--json", "call", "say"], { cwd: ws.root, env: { ...ws.env, GITHUB_ACTIONS: "true" } });
    expect(run.json().content).toBe(HOSTILE);
    expect(run.stdout).not.toMatch(/^::stop-commands::[0-9a-f]{32}$/m);
    expect(githubCommands(run.stdout)).toEqual([]);
  });

  it("Azure Pipelines: ##vso[ and ##[ are shown escaped wherever they stand, in text and in JSON", async () => {
    ws = workspace();
    const env = { ...ws.env, TF_BUILD: "True" };
    const text = await runKeelProcess(["--trust", "call", "say"], { cwd: ws.root, env });
    const json = await runKeelProcess(["--trust", "--json", "call", "say"], { cwd: ws.root, env });
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain("x \\u0023#vso[task.setvariable variable=TOKEN]y");
    expect(json.json().content).toBe(HOSTILE);
    for (const out of [text.stdout, json.stdout]) {
      expect(out).not.toMatch(/##(vso)?\[/);
      expect(out).not.toMatch(/^::stop-commands::[0-9a-f]{32}$/m);
    }
  });
});
