import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

/**
 * `approval_required` says how to approve the call next time; following it as written must work.
 * An untrusted workspace's allow rules are ignored, so there the hint names the user's config.
 */
describe("the approval_required hint", () => {
  let ws: TempWorkspace;
  afterEach(() => ws.cleanup());

  /** Follows the hint: writes an allow rule for `bash(echo *)` into the file it names, then calls again. */
  async function followHint(trust: string[]) {
    const call = () => runKeel([...trust, "--json", "call", "bash", "--input", '{"command":"echo hi"}'], { cwd: ws.root, env: ws.env });
    const asked = (await call()).json();
    expect(asked.code).toBe("approval_required");
    const file = /add an allow rule under "permissions" in (\S+\.json)/.exec(asked.content)?.[1];
    expect(file, asked.content).toBeDefined();
    const rule = { permissions: { allow: ["bash(echo *)"] } };
    if (file === "$KEEL_HOME/config.json") ws.writeUserConfig(rule);
    else ws.write(file!, rule);
    if (asked.content.includes("then run `keel trust`")) expect((await runKeel(["trust"], { cwd: ws.root, env: ws.env })).exitCode).toBe(0);
    return (await call()).json();
  }

  it("in an untrusted workspace: names $KEEL_HOME/config.json, and the rule written there allows the call", async () => {
    ws = makeWorkspace();
    expect(await followHint([])).toMatchObject({ ok: true, code: "ok" });
  });

  it("in a workspace trusted with keel trust: names keel.config.json and says to run keel trust after, which then allows the call", async () => {
    ws = makeWorkspace({ "keel.config.json": { permissions: { allow: ["read_file"] } } });
    expect((await runKeel(["trust"], { cwd: ws.root, env: ws.env })).exitCode).toBe(0);
    expect(await followHint([])).toMatchObject({ ok: true, code: "ok" });
  });

  it("through a workspace plugin's alias: names the tool it runs, and that rule written in $KEEL_HOME/config.json allows the call (one naming the alias does not)", async () => {
    ws = makeWorkspace({ "plugins/p/plugin.json": { name: "p", tool_aliases: [{ name: "sh", base_tool: "bash" }] } });
    const call = async () => (await runKeel(["--json", "call", "sh", "--input", '{"command":"echo hi"}'], { cwd: ws.root, env: ws.env })).json();
    const asked = await call();
    expect(asked.code).toBe("approval_required");
    expect(asked.content).toContain("in $KEEL_HOME/config.json");
    const named = /the allow rule must name (\S+) \(e\.g\./.exec(asked.content)?.[1];
    expect(named, asked.content).toBe("bash");
    // The example is a rule for this call, never the bare tool name (which would allow every command).
    expect(asked.content).not.toMatch(/e\.g\. "bash"/);
    expect(asked.content).toContain('e.g. "bash(…)" with a pattern this call matches');
    // What the old hint led to: a rule for the alias's own name in your config does not apply to a workspace's alias.
    ws.writeUserConfig({ permissions: { allow: ["sh(echo *)"] } });
    expect((await call()).code).toBe("approval_required");
    ws.writeUserConfig({ permissions: { allow: [`${named}(echo *)`] } });
    expect(await call()).toMatchObject({ ok: true, code: "ok" });
  });

  it("in a trusted workspace: names keel.config.json, and the rule written there allows the call", async () => {
    ws = makeWorkspace();
    expect(await followHint(["--trust"])).toMatchObject({ ok: true, code: "ok" });
    expect(ws.exists("keel.config.json")).toBe(true);
  });
});
