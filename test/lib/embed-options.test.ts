import { describe, expect, it } from "vitest";
import { callTool, createHost, runAgent, UsageError, type Host } from "../../lib/index.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { closeAfterEach } from "../helpers/test-host.js";

let ws: TempWorkspace | undefined;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

/** What a JavaScript program (or one reading its settings from JSON or the environment) may pass: no compiler checks it. */
const untyped = (options: object) => options as never;

describe("createHost, callTool and runAgent check the options a program passes", () => {
  it('a wrong type never widens: trust: "no", yes: "false", deny: "bash" and a misspelt option are refused, naming the option', async () => {
    ws = makeWorkspace({ "keel.config.json": { permissions: { allow: ["bash"] } } });
    const open = (options: object) => createHost(untyped({ cwd: ws!.root, env: ws!.env, ...options }));
    // Each of these opened a host that was wider than the program asked for: trusted, approving every call, or running bash.
    await expect(open({ trust: "no" })).rejects.toThrow(/createHost: `trust` must be true or false/);
    await expect(open({ yes: "false" })).rejects.toThrow(/`yes` must be true or false .*a string such as "false" is not false/);
    await expect(open({ yes: true, permissions: { deny: "bash" } })).rejects.toThrow(/`permissions.deny` must be a list of rules/);
    await expect(open({ yes: true, permisions: { deny: ["bash"] } })).rejects.toThrow(/`permisions` is not an option of createHost \(misspelt\?\)/);
    await expect(open({ permissions: { alow: ["bash"] } })).rejects.toThrow(/`permissions.alow` is not one of allow, ask, deny/);
    await expect(open({ permissions: { allow: [42] } })).rejects.toThrow(UsageError);
    // A sparse list's holes are no rules either (every() skips them: they reached the rule parser as undefined, a TypeError).
    // eslint-disable-next-line no-sparse-arrays
    await expect(open({ permissions: { deny: [, "bash"] } })).rejects.toThrow(/`permissions.deny` must be a list of rules/);
    // eslint-disable-next-line no-sparse-arrays
    await expect(open({ plugins: [,] })).rejects.toThrow(/`plugins` must be a list of plugins/);
    await expect(open({ model: 42 })).rejects.toThrow(/`model` must be a model name/);
    await expect(open({ approver: "yes" })).rejects.toThrow(/`approver` must be a function/);
    await expect(createHost(untyped({}))).rejects.toThrow(/`cwd` is required/);
    await expect(createHost(untyped({ cwd: ws.path("missing") }))).rejects.toThrow(/createHost: `cwd` .*missing is not an existing directory/);

    host = await open({ trust: false, yes: false, permissions: { deny: ["bash"] }, startServers: false, plugins: [] });
    expect(host.trusted).toBe(false);
    await expect(callTool(host, "bash", { command: "echo hi" }, untyped({ yes: "false" }))).rejects.toThrow(/callTool: `yes` must be true or false/);
    await expect(callTool(host, "bash", { command: "echo hi" }, untyped({ signal: "abort" }))).rejects.toThrow(/`signal` must be an AbortSignal/);
    expect(await callTool(host, "bash", { command: "echo hi" }, { yes: true })).toMatchObject({ ok: false, code: "permission_denied" });
    await expect(runAgent(host, "hi", untyped({ yes: "true" }))).rejects.toThrow(/runAgent: `yes` must be true or false/);
    await expect(runAgent(host, "hi", untyped({ maxStep: 3 }))).rejects.toThrow(/`maxStep` is not an option of runAgent/);
  });

  it("a model object is checked by the rules of a config file's model: a wrong field is a UsageError naming it, not a TypeError at the first model call", async () => {
    ws = makeWorkspace();
    const open = (model: object) => createHost(untyped({ cwd: ws!.root, env: { ...ws!.env, OPENAI_API_KEY: "k" }, startServers: false, model }));
    await expect(open({ name: "m", baseUrl: 42 })).rejects.toThrow(/^createHost: `model.baseUrl` .*expected string.*\(checked as a config file's `model` is\)/);
    await expect(open({ name: "m", contextWindow: "big" })).rejects.toThrow(/`model.contextWindow` .*expected number/);
    await expect(open({ name: "m", streamIdleTimeoutMs: 0 })).rejects.toThrow(/`model.streamIdleTimeoutMs` must be a positive number of milliseconds/);
    await expect(open({ name: "m", headers: { "x-a": 1 } })).rejects.toThrow(UsageError);
    // What a config file may hold, a program may pass (unknown fields too, as in a config file).
    host = await open({ name: "m", baseUrl: "http://127.0.0.1:9/v1", contextWindow: 8000, headers: { "x-a": "1" }, extra: true });
    expect(host.registry.get("bash")).toBeDefined();
  });
});
