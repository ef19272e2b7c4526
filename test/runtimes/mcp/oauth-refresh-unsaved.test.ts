import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inBwrap, smallDiskDir } from "../../helpers/bwrap.js";
import { runKeel } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { mcpWorkspace, waitFor } from "./mcp-test-kit.js";
import { browserPlayer, startOAuthExample, type OAuthExampleServer } from "./oauth-example-server.js";

// The server is the real OAuth example (examples/oauth-mcp-server.mjs), which rotates refresh tokens (a refresh
// token works once); the full $KEEL_HOME is a real tmpfs of a fixed size (bwrap, test/helpers/bwrap.ts).

let server: OAuthExampleServer | undefined;
let ws: TempWorkspace | undefined;
afterEach(async () => {
  await server?.stop();
  ws?.cleanup();
  server = ws = undefined;
});

/** The name of the token file of the one server of `w`. */
function tokenFileName(w: TempWorkspace): string {
  return readdirSync(join(w.keelHome, "mcp-oauth")).find((f) => f.endsWith(".json"))!;
}

/** The access token stored for the one server of `w`. */
function storedAccessToken(w: TempWorkspace): string {
  return JSON.parse(readFileSync(join(w.keelHome, "mcp-oauth", tokenFileName(w)), "utf8")).tokens.access_token as string;
}

/**
 * Starts the OAuth example (access tokens live 2 s), logs in to it as server "short" of a new workspace `ws`, and
 * waits until the server refuses the stored access token, so that the next call must refresh it. Returns the workspace, the server's URL and the spent access token.
 */
async function loggedInUntilExpired(): Promise<{ w: TempWorkspace; url: string; token: string }> {
  const s = (server = await startOAuthExample(["--token-ttl", "2"]));
  const w = (ws = mcpWorkspace({ short: { type: "http", url: s.url } }));
  const browser = browserPlayer();
  const login = await runKeel(["--trust", "--json", "mcp", "login", "short"], { cwd: w.root, env: w.env, onStderr: browser.onStderr });
  expect(login.exitCode, login.stderr).toBe(0);
  const token = storedAccessToken(w);
  const url = s.url;
  await waitFor(async () => (await fetch(url, { method: "POST", headers: { authorization: `Bearer ${token}` } })).status === 401);
  return { w, url, token };
}

describe("a refreshed MCP login that cannot be saved (full $KEEL_HOME, real tmpfs)", () => {
  it("says so at the time, naming the file, that the next start needs a login, and what to do", async () => {
    const { w, url } = await loggedInUntilExpired();
    const dir = smallDiskDir();
    const r = await inBwrap(
      ["--size", "1048576", "--tmpfs", dir],
      [
        "set -u",
        `cp -a "$SRC_HOME" "$FS/home"`,
        'export KEEL_HOME="$FS/home"',
        'dd if=/dev/zero of="$FS/filler" bs=4k 2>/dev/null; true',
        `cd "$WS" && $KEEL --trust --yes --json call mcp__short__whoami; echo "rc=$?"`,
      ].join("\n"),
      { ...w.env, FS: dir, SRC_HOME: w.keelHome, WS: w.root },
    );
    expect(r.stdout, r.stderr).toMatch(/^rc=0$/m);
    // The call works: this process uses the refreshed tokens (old code: "needs a login before its tools are listed").
    expect(JSON.parse(r.stdout.slice(0, r.stdout.lastIndexOf("rc=")))).toMatchObject({ ok: true, code: "ok" });
    expect((await server!.log()).stats.refreshes).toBeGreaterThanOrEqual(1);
    // And says at once what failed, where, and what it means for the next start.
    const file = `${dir}/home/mcp-oauth/${tokenFileName(w)}`;
    expect(r.stderr).toContain(
      `keel: warning: Could not save the login of ${url} to ${file}: the disk is full (ENOSPC: no space left on device, write); free space on that disk, then retry. The file keeps what it held before.`,
    );
    expect(r.stderr).toContain(
      'MCP server "short" keeps working until this keel process ends; the server replaced its refresh token and the file keeps the old, spent one, so once that is fixed a later keel process needs `keel mcp login short`.',
    );
  });

  it("a token file that cannot be replaced (bwrap --ro-bind over it): the same warning, and the file keeps the old login", async () => {
    const { w, url, token } = await loggedInUntilExpired();
    const file = join(w.keelHome, "mcp-oauth", tokenFileName(w));
    const r = await inBwrap(["--ro-bind", file, file], `cd "$WS" && $KEEL --trust --yes --json call mcp__short__whoami; echo "rc=$?"`, {
      ...w.env,
      WS: w.root,
    });
    expect(r.stdout, r.stderr).toMatch(/^rc=0$/m);
    expect(JSON.parse(r.stdout.slice(0, r.stdout.lastIndexOf("rc=")))).toMatchObject({ ok: true, code: "ok" });
    expect(r.stderr).toContain(`keel: warning: Could not save the login of ${url} to ${file}: EBUSY: resource busy or locked, rename`);
    expect(r.stderr).toContain('The file keeps what it held before. MCP server "short" keeps working until this keel process ends;');
    expect(r.stderr).toContain("a later keel process needs `keel mcp login short`");
    // What the warning said: the file still holds the spent login, so the next process must log in.
    expect(storedAccessToken(w)).toBe(token);
    const next = await runKeel(["--trust", "--yes", "--json", "call", "mcp__short__whoami"], { cwd: w.root, env: w.env });
    expect(next.json().content).toContain("needs a login");
  });
});
