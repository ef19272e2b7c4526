import { afterEach, describe, expect, it } from "vitest";
import { runKeelProcess } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

/**
 * What a script or CI job relies on (README, Command reference and Exit codes): with `--json`, stdout is one
 * JSON document — an error too, as `{"error": {type, message}}` — and the exit code is the documented one.
 */
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe("--json errors a script reads", () => {
  it("a project config that is not JSON is a plain one-line ManifestError with line and column, no colour codes, also where CI is set", async () => {
    ws = makeWorkspace({ ".keelrc.json": '{\n  "output": {},\n}\n' });
    for (const env of [
      { ...ws.env, CI: "true" },
      { ...ws.env, FORCE_COLOR: "1" },
    ]) {
      const r = await runKeelProcess(["--json", "tools"], { cwd: ws.root, env });
      expect(r.exitCode).toBe(2);
      const { error } = r.json<{ error: { type: string; message: string } }>();
      expect(error.type).toBe("ManifestError");
      expect(error.message).toContain(`JSON Error in ${ws.path(".keelrc.json")}: `);
      expect(error.message).toContain("(line 3, column 1)");
      expect(error.message).not.toMatch(/\u001b|\n/);
      expect(r.stderr).not.toMatch(/\u001b|\\u001b/);
    }
  });
});
