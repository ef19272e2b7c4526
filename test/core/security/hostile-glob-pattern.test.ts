import { afterEach, describe, expect, it } from "vitest";
import { runKeel, runKeelProcess } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const LONG_NAME = "a".repeat(250);
/**
 * A backtracking bomb written by the model (or dictated to it by a hostile README): against
 * LONG_NAME, picomatch's regular expression for it (what tinyglobby matched with) runs for hours
 * and blocks the event loop, so neither the call's timeout nor Ctrl-C could stop it.
 */
const HOSTILE_GLOB = `*${"a*".repeat(10)}b`;

/** A committed repository with the long name (no match) and one name the glob does match. */
function hostileRepo(): TempWorkspace {
  return makeWorkspace({ [LONG_NAME]: "x\n", [`${LONG_NAME}b`]: "x marks it\n", "README.md": "x\n" }, { git: true });
}

/** `keel --trust --yes --json call TOOL` as a child process; its timeout is only a safety net (a hang ends killed, with exit code -1, before the test's own timeout). */
async function call(tool: string, input: object) {
  return runKeelProcess(["--trust", "--yes", "--json", "call", tool, "--input", JSON.stringify(input)], { cwd: ws!.root, env: ws!.env, timeout: 90_000 });
}

describe("a model-written glob cannot hang keel (real CLI, child process)", () => {
  it("glob with a backtracking-bomb pattern answers with its matches", async () => {
    ws = hostileRepo();
    const glob = await call("glob", { pattern: HOSTILE_GLOB });
    expect(glob.exitCode, glob.stderr).toBe(0);
    expect(glob.json()).toMatchObject({ ok: true, data: { paths: [`${LONG_NAME}b`], total: 1 } });
  });

  it("grep's glob with a backtracking-bomb pattern searches only the files it matches", async () => {
    ws = hostileRepo();
    const grep = await call("grep", { pattern: "x", glob: HOSTILE_GLOB });
    expect(grep.exitCode, grep.stderr).toBe(0);
    expect(grep.json()).toMatchObject({ ok: true, data: { matches: [{ file: `${LONG_NAME}b`, line: 1, text: "x marks it" }], filesSearched: 1 } });
  });
});

describe("a glob keel cannot match in bounded time is refused before walking (real CLI)", () => {
  it("glob and grep's glob fail with the supported syntax in the message", async () => {
    ws = makeWorkspace({ "a.txt": "x\n" });
    for (const [tool, input] of [
      ["glob", { pattern: "!(a).txt" }],
      ["grep", { pattern: "x", glob: "!(a).txt" }],
    ] as const) {
      const run = await runKeel(["--json", "call", tool, "--input", JSON.stringify(input)], { cwd: ws.root, env: ws.env });
      expect(run.exitCode).toBe(1);
      expect(run.json()).toMatchObject({ ok: false, phase: "execute", code: "execution_failed" });
      expect(run.json().content).toContain('Pattern "!(a).txt" uses syntax glob and grep cannot match in bounded time');
      expect(run.json().content).toContain("Supported: * (within a name), ** (any depth of folders)");
    }
  });
});
