import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** A workspace config whose allow rule only a trusted workspace gets: an untrusted one still asks for bash. */
const ALLOWS_BASH = { permissions: { allow: ["bash"] } };

describe("trust is one workspace's, and only what says so trusts", () => {
  it("`keel trust` in one repository does not trust another one beside it (same $KEEL_HOME)", async () => {
    ws = makeWorkspace({ "keel.config.json": ALLOWS_BASH }, { git: true });
    const other = join(ws.root, "..", "other");
    mkdirSync(other);
    writeFileSync(join(other, "keel.config.json"), JSON.stringify(ALLOWS_BASH));
    execFileSync("git", ["init", "-q"], { cwd: other });
    const call = (cwd: string, env = ws!.env) => runKeel(["--json", "call", "bash", "--input", JSON.stringify({ command: "true" })], { cwd, env });

    const trusted = await runKeel(["--json", "--yes", "trust"], { cwd: ws.root, env: ws.env });
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    // the trusted repository's allow rule applies...
    expect((await call(ws.root)).json()).toMatchObject({ ok: true, code: "ok" });
    // ...the other's does not: it is still untrusted, so bash asks (and nobody is there to answer)
    const untrusted = await call(other);
    expect(untrusted.json()).toMatchObject({ ok: false, code: "approval_required" });
  });

  it('KEEL_TRUST trusts for one invocation only as "1" or "true": "0", "false", "no" and "" leave the workspace untrusted', async () => {
    ws = makeWorkspace({ "keel.config.json": ALLOWS_BASH }, { git: true });
    const call = (value: string) =>
      runKeel(["--json", "call", "bash", "--input", JSON.stringify({ command: "true" })], { cwd: ws!.root, env: { ...ws!.env, KEEL_TRUST: value } });
    for (const value of ["0", "false", "no", ""]) expect((await call(value)).json(), `KEEL_TRUST=${value}`).toMatchObject({ code: "approval_required" });
    for (const value of ["1", "true"]) expect((await call(value)).json(), `KEEL_TRUST=${value}`).toMatchObject({ ok: true, code: "ok" });
  });
});
