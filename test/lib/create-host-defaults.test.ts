import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { callTool, createHost, UsageError, type Host } from "../../lib/index.js";
import { assembleHost } from "../../lib/create-host.js";
import { closeTerminalAfterEach, HAS_TMUX, startTerminal, type Terminal } from "../helpers/tmux.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { closeAfterEach } from "../helpers/test-host.js";
import { upstreamManifest } from "../runtimes/serve/serve-test-kit.js";

let ws: TempWorkspace | undefined;
let host: Host | undefined;
let term: Terminal | undefined;
// hooks registered later run first: the terminal closes, then the host, then the workspace goes
closeAfterEach(() => ({ host, ws }));
closeTerminalAfterEach(() => ({ term }));

const LIB = fileURLToPath(new URL("../../dist/lib/index.js", import.meta.url));

/** A workspace whose config would widen (allow bash and write_file), and a user config that denies. */
function widenedWorkspace(): TempWorkspace {
  const w = makeWorkspace({
    "keel.config.json": { permissions: { allow: ["bash", "write_file"] } },
    "secret.txt": "s3cret\n",
  });
  w.writeUserConfig({ permissions: { deny: ["bash(rm *)", "read_file(secret.txt)"] } });
  return w;
}

describe("createHost: the defaults an embedding program gets restrict", () => {
  it("untrusted workspace, nothing approved, your deny rules applied; config and reviewTrust are refused; trust: false beats KEEL_TRUST", async () => {
    ws = widenedWorkspace();
    host = await createHost({ cwd: ws.root, env: ws.env });
    expect(host.trusted).toBe(false);
    expect(await callTool(host, "bash", { command: "echo hi" })).toMatchObject({ ok: false, code: "approval_required" });
    expect(await callTool(host, "read_file", { path: "secret.txt" })).toMatchObject({ ok: false, code: "permission_denied" });
    expect(await callTool(host, "bash", { command: "rm x" }, { yes: true })).toMatchObject({ ok: false, code: "permission_denied" });
    await host.close();
    host = undefined;

    // `config` would replace your config (its deny rules too); `reviewTrust` reads the workspace's as trusted.
    await expect(createHost({ cwd: ws.root, env: ws.env, config: {} } as never)).rejects.toThrow(UsageError);
    await expect(createHost({ cwd: ws.root, env: ws.env, config: {} } as never)).rejects.toThrow(/deny rules of your \$KEEL_HOME/);
    await expect(createHost({ cwd: ws.root, env: ws.env, reviewTrust: true } as never)).rejects.toThrow(/does not take `reviewTrust`/);

    // KEEL_TRUST in the environment trusts as for the CLI, unless the program said trust: false.
    const env = { ...ws.env, KEEL_TRUST: "1" };
    host = await createHost({ cwd: ws.root, env, trust: false });
    expect(host.trusted).toBe(false);
    expect(host.env.KEEL_TRUST).toBeUndefined();
    expect(await callTool(host, "write_file", { path: "w.txt", content: "x" })).toMatchObject({ ok: false, code: "approval_required" });
    await host.close();
    host = await createHost({ cwd: ws.root, env });
    expect(host.trusted).toBe(true);
  });

  it("a host opened for keel trust's review (reviewTrust, keel's own option) runs none of the workspace's workflows or shell lines", async () => {
    ws = makeWorkspace({
      ".claw-workflows.json": { workflows: [{ name: "touch", steps: [{ run: "touch ran.txt" }] }] },
      ".claude/commands/sh.md": "---\nallowed-tools: Bash(touch:*)\n---\nRan !`touch cmd.txt` here.\n",
    });
    host = await assembleHost({ cwd: ws.root, env: ws.env, reviewTrust: true, yes: true });
    expect(await callTool(host, "workflow_run", { workflow_name: "touch" })).toMatchObject({ ok: false, code: "permission_denied" });
    const expanded = await host.service("prompt-commands")!.expand("/sh", { yes: true });
    expect(expanded?.prompt).toMatch(/not trusted/);
    expect(ws.exists("ran.txt") || ws.exists("cmd.txt")).toBe(false);
  });

  it.skipIf(!HAS_TMUX)("never asks an MCP server's question on the terminal it runs on: declined unless the program passes elicit", async () => {
    ws = makeWorkspace({});
    ws.write(".mcp.json", upstreamManifest(ws));
    ws.write(
      "embed.mjs",
      [
        `const { createHost, callTool } = await import(${JSON.stringify(LIB)});`,
        `const host = await createHost({ cwd: process.cwd(), trust: true });`,
        `const obs = await callTool(host, "mcp__up__ask_name", {});`,
        `console.log("RESULT " + obs.content);`,
        `await host.close();`,
      ].join("\n"),
    );
    // A terminal, and not CI: where keel's CLI would ask.
    const { CI: _ci, ...env } = ws.env;
    term = startTerminal([process.execPath, ws.path("embed.mjs")], { cwd: ws.root, env });
    const screen = await term.waitFor(/RESULT|asks:/);
    expect(screen).not.toContain("asks:");
    expect((await term.waitFor("RESULT")).includes("RESULT no name (decline)")).toBe(true);
  });
});
