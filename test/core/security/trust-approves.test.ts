import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const ECHO_SERVER = fileURLToPath(new URL("../../runtimes/mcp/fixtures/protocol-server.mjs", import.meta.url));

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** A server entry that runs the fixture server, after touching `marker` (so a start is visible). */
function server(marker: string): object {
  return { command: process.execPath, args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, ""); import(${JSON.stringify(ECHO_SERVER)})`] };
}

/** A hook that touches `marker` before every tool call. */
function hook(marker: string): object {
  return { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: `touch ${marker}` }] }] };
}

describe("keel trust approves what the workspace declares now; what is added or changed later waits for the next keel trust", () => {
  it("MCP servers, command hooks and code plugins: listed by keel trust (none of them run by it), run once approved, held back when changed", async () => {
    ws = makeWorkspace(
      {
        ".mcp.json": { mcpServers: { a: server("a-started") } },
        ".claude/settings.json": { hooks: hook("hook-ran") },
        "plugins/p/plugin.json": { name: "p", main: "./index.mjs" },
        // (keel runs in this process here, and a pinned plugin from keel's copy of its folder: the marker is placed in the workspace root apply is given)
        "plugins/p/index.mjs": `import { writeFileSync } from "node:fs"; export function apply(keel) { writeFileSync(keel.workspace.root + "/plugin-imported", ""); }`,
      },
      { git: true },
    );
    const keel = (...args: string[]) => runKeel(["--json", "--yes", ...args], { cwd: ws!.root, env: ws!.env });
    const trusted = await keel("trust");
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    const approved = trusted.json().approved as { kind: string; name: string }[];
    expect(approved.map((a) => a.kind).sort()).toEqual(["code plugin", "hook", "mcp server"]);
    expect(approved.find((a) => a.kind === "mcp server")!.name).toBe('"a" (.mcp.json)');
    // Reviewing ran nothing: no server started, no hook, no module imported.
    for (const marker of ["a-started", "hook-ran", "plugin-imported"]) expect(ws.exists(marker), marker).toBe(false);

    // Approved: they run.
    const called = await keel("call", "mcp__a__tuple", "--input", JSON.stringify({ pair: ["x", 1] }));
    expect(called.json(), JSON.stringify(called.json())).toMatchObject({ ok: true, content: 'pair ["x",1]' });
    for (const marker of ["a-started", "hook-ran", "plugin-imported"]) expect(ws.exists(marker), marker).toBe(true);

    // Changed since (as a `git pull` or a sandboxed command could): a new server, a changed hook, a changed module.
    for (const marker of ["a-started", "hook-ran", "plugin-imported"]) rmSync(ws!.path(marker), { force: true });
    ws.write(".mcp.json", { mcpServers: { a: server("a-started"), b: server("b-started") } });
    ws.write(".claude/settings.json", { hooks: hook("hook2-ran") });
    writeFileSync(ws.path("plugins/p/index.mjs"), `${readFileSync(ws.path("plugins/p/index.mjs"), "utf8")}\n// changed\n`);
    const held = await keel("call", "mcp__b__tuple", "--input", JSON.stringify({ pair: ["x", 1] }));
    expect(held.exitCode).toBe(1);
    expect(held.json().content).toMatch(/MCP server "b" \(\.mcp\.json\) was added or changed since this workspace was trusted/);
    // `keel mcp` and `keel mcp doctor` say why too (not that the workspace is untrusted)
    const listed = (await keel("mcp")).json().servers as { name: string; state: string; hint?: string }[];
    expect(listed.find((s) => s.name === "b")).toMatchObject({
      state: "untrusted",
      hint: expect.stringContaining("was added or changed since this workspace was trusted"),
    });
    const doctored = (await keel("mcp", "doctor", "b")).json().servers as { hint?: string }[];
    expect(doctored[0]!.hint).toContain("was added or changed since this workspace was trusted");
    const still = await keel("call", "mcp__a__tuple", "--input", JSON.stringify({ pair: ["y", 2] }));
    expect(still.json()).toMatchObject({ ok: true }); // unchanged: still approved
    expect(ws.exists("b-started")).toBe(false);
    expect(ws.exists("hook2-ran")).toBe(false);
    expect(ws.exists("plugin-imported")).toBe(false);
    const tools = await keel("tools");
    const warnings = (tools.json().diagnostics as { message: string }[]).map((d) => d.message).join("\n");
    expect(warnings).toMatch(/mcp server "b" \(\.mcp\.json\) was added or changed since this workspace was trusted/);
    expect(warnings).toMatch(/hook PreToolUse `touch hook2-ran` \(\.claude\/settings\.json\) was added or changed/);
    expect(warnings).toMatch(/code plugin p \(plugins\/p\/index\.mjs\) was added or changed/);

    // keel plugins shows the held module with its plugin.
    const plugins = (await keel("plugins")).json().plugins as { name: string; diagnostics: { message: string }[] }[];
    expect(
      plugins
        .find((p) => p.name === "p")!
        .diagnostics.map((d) => d.message)
        .join("\n"),
    ).toMatch(/code plugin p .* was added or changed since/);
    const doctor = await keel("doctor");
    const checks = doctor.json().checks as { name: string; status: string; message: string }[];
    expect(
      checks.filter((c) => c.name === "trust" && c.message.includes("this workspace is trusted, but 3 item(s) were added or changed since")),
    ).toMatchObject([{ status: "warn" }]);
    // Listed there once, not also as one warning per held item.
    expect(checks.filter((c) => c.name === "trust")).toHaveLength(1);

    // --trust runs everything for one invocation; a new keel trust approves the new set.
    expect((await keel("--trust", "call", "mcp__b__tuple", "--input", JSON.stringify({ pair: ["z", 3] }))).json()).toMatchObject({ ok: true });
    await keel("trust");
    rmSync(ws.path("b-started"), { force: true });
    expect((await keel("call", "mcp__b__tuple", "--input", JSON.stringify({ pair: ["z", 3] }))).json()).toMatchObject({ ok: true });
    expect(ws.exists("b-started")).toBe(true);
    expect(ws.exists("hook2-ran")).toBe(true);
  });

  it("the config's widening settings (allow rules, model endpoint, …) apply as approved; changed since, the config only restricts until the next keel trust", async () => {
    ws = makeWorkspace({ "keel.config.json": { permissions: { allow: ["bash(echo *)"], deny: ["bash(rm *)"] } } }, { git: true });
    const keel = (...args: string[]) => runKeel(["--json", ...args], { cwd: ws!.root, env: ws!.env });
    const echo = () => keel("call", "bash", "--input", JSON.stringify({ command: "echo hi" }));
    const trusted = await keel("trust");
    expect(trusted.json().approved).toMatchObject([{ kind: "config", name: "settings that widen (permissions.allow in keel.config.json)" }]);
    // keel trust reads the config as trusted (what it approves): it does not warn that it holds it back.
    expect(trusted.stderr).not.toContain("changed since `keel trust`");
    expect((await echo()).json()).toMatchObject({ ok: true, content: expect.stringContaining("hi") }); // allowed without --yes
    // A deny rule added since is a restriction: it applies, and the allow rule is still approved.
    ws.write("keel.config.json", { permissions: { allow: ["bash(echo *)"], deny: ["bash(rm *)", "bash(curl *)"] } });
    expect((await echo()).json()).toMatchObject({ ok: true });
    // The allow rules changed (as a sandboxed command or a git pull could): the workspace's config only restricts.
    ws.write("keel.config.json", { permissions: { allow: ["bash"], deny: ["bash(rm *)"] } });
    const held = await echo();
    expect(held.json()).toMatchObject({ ok: false, code: "approval_required" });
    // Said on stderr as the command starts: the allow rule you rely on is held back, and why.
    expect(held.stderr).toContain("keel: warning [config]");
    expect(held.stderr).toContain("This workspace's settings that widen changed since `keel trust`, so its config only restricts: permissions.allow");
    const tools = await keel("tools");
    const messages = (tools.json().diagnostics as { message: string }[]).map((d) => d.message).join("\n");
    expect(messages).toMatch(
      /config settings that widen \(permissions\.allow in keel\.config\.json\) was added or changed since this workspace was trusted: they are not applied/,
    );
    expect(messages).toContain("This workspace's settings that widen changed since `keel trust`, so its config only restricts: permissions.allow");
    expect(messages).not.toContain("This workspace is not trusted");
    expect((await keel("call", "bash", "--input", JSON.stringify({ command: "rm -rf x" }))).json()).toMatchObject({ code: "permission_denied" }); // its deny rules still apply
    const again = await keel("trust");
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).not.toContain("changed since `keel trust`");
    expect((await echo()).json()).toMatchObject({ ok: true });
    // The user's own `keel config set` on top of approved settings stays approved; a model's config_set does not.
    const set = await keel("--yes", "config", "set", "permissions.allow", '["bash(echo *)", "bash(ls*)"]', "--source", "project");
    expect(set.exitCode, set.stderr).toBe(0);
    const ls = await keel("call", "bash", "--input", JSON.stringify({ command: "ls" }));
    expect(ls.json()).toMatchObject({ ok: true });
    const noWarning = await keel("tools");
    expect(JSON.stringify(noWarning.json().diagnostics)).not.toContain("since this workspace was trusted");
  });

  it("a string model added since keel trust is held too: trusted, it would replace your model endpoint and key variable, not only the name", async () => {
    ws = makeWorkspace({ "keel.config.json": { agent: { maxSteps: 3 } } }, { git: true });
    ws.writeUserConfig({ model: { name: "local", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "LOCAL_KEY" } });
    const keel = (...args: string[]) => runKeel(["--json", ...args], { cwd: ws!.root, env: ws!.env });
    expect((await keel("trust")).json().approved).toEqual([]);
    // Added since (a git pull): merged as trusted it would send the sessions to the default endpoint with OPENAI_API_KEY.
    ws.write("keel.config.json", { model: "gpt-4o" });
    const got = (await keel("config", "get", "model")).json();
    expect(got.data.value).toMatchObject({ name: "gpt-4o", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "LOCAL_KEY" });
    const warnings = JSON.stringify((await keel("tools")).json().diagnostics);
    expect(warnings).toContain("config settings that widen (model in keel.config.json) was added or changed since this workspace was trusted");
    // Reviewed: it applies as written.
    expect((await keel("trust")).json().approved).toMatchObject([{ kind: "config", name: "settings that widen (model in keel.config.json)" }]);
    expect((await keel("config", "get", "model")).json().data.value).toBe("gpt-4o");
  });

  it("a server's pin covers what its entry says, not what it expands to: dropping `sandbox` or feeding a value from another variable is a change, exporting the variable is not", async () => {
    const entry = (extra: object) => ({ mcpServers: { a: { ...server("a-started"), env: { TOKEN: "${GOOD_TOKEN}" }, sandbox: true, ...extra } } });
    ws = makeWorkspace({ ".mcp.json": entry({}) }, { git: true });
    const env = { ...ws.env, GOOD_TOKEN: "good-token-value-1234", OTHER_SECRET: "other-secret-value-5678" };
    const keel = (...args: string[]) => runKeel(["--json", ...args], { cwd: ws!.root, env });
    // Trusted in a shell where the token is not exported: the environment is the user's, not the workspace's, so no change.
    const trusted = await runKeel(["--json", "trust"], { cwd: ws.root, env: ws.env });
    expect(trusted.json().approved).toMatchObject([{ kind: "mcp server", name: '"a" (.mcp.json)' }]);
    const heldWarning = async () =>
      ((await keel("tools")).json().diagnostics as { message: string }[]).some((d) => /mcp server "a" \(\.mcp\.json\) was added or changed/.test(d.message));
    expect(await heldWarning()).toBe(false);
    for (const changed of [entry({ sandbox: false }), entry({ env: { TOKEN: "${OTHER_SECRET}" } })]) {
      rmSync(ws.path("a-started"), { force: true });
      ws.write(".mcp.json", changed);
      expect(await heldWarning(), JSON.stringify(changed)).toBe(true);
      expect(ws.exists("a-started")).toBe(false);
    }
  });

  it("a hook held back in a trusted workspace says so when its event fires (not that the workspace is untrusted)", async () => {
    ws = makeWorkspace({ ".claude/settings.json": { hooks: hook("hook-ran") } }, { git: true });
    const keel = (...args: string[]) => runKeel(["--json", ...args], { cwd: ws!.root, env: ws!.env });
    await keel("trust");
    ws.write(".claude/settings.json", { hooks: hook("hook2-ran") });
    const r = await keel("call", "read_file", "--input", JSON.stringify({ path: ".claude/settings.json" }));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ws.exists("hook2-ran")).toBe(false);
    expect(r.stderr).toContain("did not run: they were added or changed since this workspace was trusted");
    expect(r.stderr).not.toContain("this workspace is not trusted");
  });

  it("approvals accumulate: keel trust in one folder of a monorepo keeps what keel trust approved in another; --revoke forgets them all", async () => {
    ws = makeWorkspace(
      { "pa/.mcp.json": { mcpServers: { a: server("a-started") } }, "pb/.mcp.json": { mcpServers: { b: server("b-started") } } },
      { git: true },
    );
    const keelIn = (dir: string, ...args: string[]) => runKeel(["--json", "--yes", ...args], { cwd: ws!.path(dir), env: ws!.env });
    expect((await keelIn("pa", "trust")).json().approved).toMatchObject([{ name: '"a" (pa/.mcp.json)' }]);
    expect((await keelIn("pb", "trust")).json().approved).toMatchObject([{ name: '"b" (pb/.mcp.json)' }]);
    expect((await keelIn("pa", "call", "mcp__a__tuple", "--input", JSON.stringify({ pair: ["x", 1] }))).json()).toMatchObject({ ok: true });
    expect((await keelIn("pb", "call", "mcp__b__tuple", "--input", JSON.stringify({ pair: ["x", 1] }))).json()).toMatchObject({ ok: true });
    await keelIn("pb", "trust", "--revoke");
    await keelIn("pb", "trust");
    const held = await keelIn("pa", "call", "mcp__a__tuple", "--input", JSON.stringify({ pair: ["x", 1] }));
    expect(held.json().content).toMatch(/MCP server "a" \(pa\/\.mcp\.json\) was added or changed since this workspace was trusted/);
  });

  it("a trust record written before approvals (no `approved` list) approves nothing, and says the record is the reason and to run keel trust", async () => {
    ws = makeWorkspace(
      {
        ".mcp.json": { mcpServers: { a: server("a-started") } },
        "keel.config.json": { permissions: { allow: ["bash(echo *)"] } },
        ".claude/settings.json": { hooks: hook("hook-ran") },
      },
      { git: true },
    );
    writeFileSync(join(ws.keelHome, "trust.json"), JSON.stringify({ trusted: [{ root: ws.root, at: "2026-11-01T00:00:00.000Z" }] }));
    const r = await runKeel(["--json", "call", "mcp__a__tuple", "--input", JSON.stringify({ pair: ["x", 1] })], { cwd: ws.root, env: ws.env });
    expect(r.json().content).toMatch(
      /MCP server "a" \(\.mcp\.json\) is not approved yet: this workspace was trusted before `keel trust` recorded what it approves.*keel trust/,
    );
    expect(ws.exists("a-started")).toBe(false);
    const echo = await runKeel(["--json", "call", "bash", "--input", JSON.stringify({ command: "echo hi" })], { cwd: ws.root, env: ws.env });
    expect(echo.json()).toMatchObject({ code: "approval_required" }); // the allow rule waits for the review too
    const tools = await runKeel(["--json", "tools"], { cwd: ws.root, env: ws.env });
    const messages = (tools.json().diagnostics as { message: string }[]).map((d) => d.message).join("\n");
    expect(messages).toMatch(/config settings that widen \(permissions\.allow in keel\.config\.json\) is not approved yet: this workspace was trusted before/);
    expect(messages).toContain("This workspace was trusted before `keel trust` recorded what it approves, so its config only restricts: permissions.allow");
    expect(messages).not.toContain("was added or changed since");
    expect(messages).not.toContain("changed since `keel trust`");
    const hooks = (await runKeel(["--json", "hooks"], { cwd: ws.root, env: ws.env })).json().hooks as { runs: boolean; why?: string }[];
    expect(hooks).toMatchObject([{ runs: false, why: expect.stringContaining("trusted before `keel trust` recorded what it approves") }]);
    expect(ws.exists("hook-ran")).toBe(false);
  });

  it("keel plugins shows a held code module with the innermost plugin holding it, not with a plugin whose folder holds both", async () => {
    ws = makeWorkspace(
      {
        ".claude-plugin/plugin.json": { name: "repo" },
        "plugins/p/plugin.json": { name: "p", main: "./index.mjs" },
        "plugins/p/index.mjs": "export function apply() {}",
      },
      { git: true },
    );
    const keel = (...args: string[]) => runKeel(["--json", ...args], { cwd: ws!.root, env: ws!.env });
    expect((await keel("trust")).exitCode).toBe(0);
    writeFileSync(ws.path("plugins/p/index.mjs"), "export function apply() {}\n// changed\n");
    const plugins = (await keel("plugins")).json().plugins as { name: string; diagnostics: { message: string }[] }[];
    const held = (name: string) => plugins.find((p) => p.name === name)!.diagnostics.filter((d) => d.message.includes("was added or changed since"));
    expect(held("p")).toHaveLength(1);
    expect(held("repo")).toEqual([]);
  });
});
