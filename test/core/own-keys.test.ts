import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** Names every plain object answers (Object.prototype's): a table looked up with one must not find them. */
const PROTO_NAMES = ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf"];

describe("words from input are looked up as own keys only (names such as `toString` or `__proto__`)", () => {
  it("allow rules named toString, constructor, __proto__ load (every command failed: `allowLevels[rule].includes is not a function`)", async () => {
    ws = makeWorkspace();
    ws.writeUserConfig({ permissions: { allow: PROTO_NAMES } });
    const run = await runKeel(["config", "get", "permissions"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("is not a function");
    for (const name of PROTO_NAMES) expect(run.stdout).toContain(`"${name}"`);
  });
});
