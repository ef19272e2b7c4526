import { afterEach, describe, expect, it } from "vitest";
import { runKeelProcess } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** A 1 MB command line of words joined by dots: masking it for a listing took time squared in its length (minutes). */
const LONG_LINE = `API_KEY=sekrit123 echo ${"a.".repeat(500_000)}`;

describe("a hostile workspace's long command line cannot hang config_list (real CLI, child process)", () => {
  it("config_list of an untrusted workspace's 1 MB `command` value finishes, the line masked", async () => {
    // `agent` is a key an untrusted workspace may set; a key ending in `command` is masked as a command line.
    ws = makeWorkspace({ "keel.config.json": { agent: { command: LONG_LINE } } });
    // The timeout is only a safety net: a hang ends killed, with exit code -1.
    const run = await runKeelProcess(["--json", "call", "config_list", "--input", "{}"], { cwd: ws.root, env: ws.env, timeout: 90_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ ok: true });
    expect(run.json().content).toContain("a.a.a.a.");
    expect(run.json().content).toContain("API_KEY=***");
    expect(run.json().content).not.toContain("sekrit123");
  });
});
