import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel, runKeelProcess } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const LONG_NAME = "a".repeat(40);
/** A backtracking bomb for a regex engine: picomatch's regex for it ran for minutes against LONG_NAME. */
const HOSTILE_RULE = `read_file(*${"a*".repeat(14)}b)`;

/** `keel --json call TOOL` as a child process; the timeout is only a safety net (a hang ends killed, with exit code -1). */
async function call(tool: string, input: object) {
  return runKeelProcess(["--json", "call", tool, "--input", JSON.stringify(input)], { cwd: ws!.root, env: ws!.env, timeout: 90_000 });
}

describe("a hostile workspace's glob rules cannot hang keel (real CLI, child process)", () => {
  it("glob, grep and read_file finish with their results when an untrusted deny rule is a backtracking bomb", async () => {
    ws = makeWorkspace({ [LONG_NAME]: "needle\n", "src/ok.txt": "needle\n", "keel.config.json": { permissions: { deny: [HOSTILE_RULE] } } });
    const glob = await call("glob", { pattern: "**/*" });
    expect(glob.exitCode, glob.stderr).toBe(0);
    expect(glob.json().data.paths).toEqual(expect.arrayContaining([LONG_NAME, "src/ok.txt"]));
    const grep = await call("grep", { pattern: "needle" });
    expect(grep.exitCode, grep.stderr).toBe(0);
    expect(grep.json().data.matches.map((m: { file: string }) => m.file)).toEqual(expect.arrayContaining([LONG_NAME, "src/ok.txt"]));
    const read = await call("read_file", { path: LONG_NAME });
    expect(read.json()).toMatchObject({ ok: true });
    expect(read.stdout).toContain("needle");
  });

  it("the same rule still denies the names it matches", async () => {
    ws = makeWorkspace({ [`${LONG_NAME}b`]: "secret\n", "keel.config.json": { permissions: { deny: [HOSTILE_RULE] } } });
    const read = await call("read_file", { path: `${LONG_NAME}b` });
    expect(read.json()).toMatchObject({ ok: false, code: "permission_denied" });
    const glob = await call("glob", { pattern: "**/*" });
    expect(glob.json().data.paths).not.toContain(`${LONG_NAME}b`);
  });
});

describe("a glob keel cannot match in bounded time fails closed (real CLI)", () => {
  it("a deny rule with one denies every path of its tool, naming the rule and why", async () => {
    ws = makeWorkspace({ "a.txt": "hi\n", "keel.config.json": { permissions: { deny: ["read_file(!(secret.txt))"] } } });
    const run = await runKeel(["--json", "call", "read_file", "--input", JSON.stringify({ path: "a.txt" })], { cwd: ws.root, env: ws.env });
    expect(run.json()).toMatchObject({ ok: false, code: "permission_denied" });
    expect(run.json().content).toContain('deny rule "read_file(!(secret.txt))" matched');
    expect(run.json().content).toContain("failing closed");
    const other = await runKeel(["--json", "call", "list_dir", "--input", JSON.stringify({ path: "." })], { cwd: ws.root, env: ws.env });
    expect(other.json()).toMatchObject({ ok: true });
  });

  it("an allow rule with one allows nothing: the write still asks", async () => {
    ws = makeWorkspace({ "a.txt": "hi\n" });
    ws.writeUserConfig({ permissions: { allow: ["write_file(!(secret.txt))"] } });
    const input = JSON.stringify({ path: "b.txt", content: "x\n" });
    const run = await runKeel(["--json", "call", "write_file", "--input", input], { cwd: ws.root, env: ws.env });
    expect(run.json()).toMatchObject({ ok: false, code: "approval_required" });
    expect(existsSync(ws.path("b.txt"))).toBe(false);
  });
});
