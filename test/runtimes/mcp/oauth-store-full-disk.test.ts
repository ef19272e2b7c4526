import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { inBwrapRun, smallDiskDir } from "../../helpers/bwrap.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap): `--size N --tmpfs DIR`
// is a real file system of N bytes, so $KEEL_HOME really fills up.

const DIST_STORE = fileURLToPath(new URL("../../../dist/runtimes/mcp/oauth-store.js", import.meta.url));

/** Inside bwrap: a login saved, the disk filled, a refreshed login saved; prints what the second save said and what is left. */
const SCRIPT = `
const { OAuthStore } = await import(process.argv[1]);
const { closeSync, openSync, readdirSync, readFileSync, writeSync } = await import("node:fs");
const home = process.argv[2];
const store = new OAuthStore(home);
const url = "https://mcp.example.com/mcp";
await store.write(url, { serverUrl: url, tokens: { access_token: "first", token_type: "Bearer" } });
const fd = openSync(home + "/filler", "w");
try { for (;;) writeSync(fd, Buffer.alloc(4096)); } catch {}
closeSync(fd);
let error = null;
try {
  await store.write(url, { serverUrl: url, tokens: { access_token: "second", token_type: "Bearer", refresh_token: "r".repeat(5000) } });
} catch (e) { error = { name: e.name, message: e.message }; }
const file = store.fileFor(url);
console.log(JSON.stringify({ error, file, kept: JSON.parse(readFileSync(file, "utf8")).tokens.access_token, files: readdirSync(home + "/mcp-oauth") }));
`;

describe("the MCP login store on a full $KEEL_HOME (real tmpfs, bwrap)", () => {
  it("a save that does not fit says where and why, and the file keeps the previous login with no temp file left", async () => {
    const dir = smallDiskDir();
    const r = await inBwrapRun(["--size", "65536", "--tmpfs", dir], [process.execPath, "--input-type=module", "-e", SCRIPT, DIST_STORE, dir]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { error: { name: string; message: string } | null; file: string; kept: string; files: string[] };
    expect(out.error?.name).toBe("StateError");
    expect(out.error?.message).toBe(
      `Could not save the login of https://mcp.example.com/mcp to ${out.file}: the disk is full (ENOSPC: no space left on device, write); free space on that disk, then retry. The file keeps what it held before.`,
    );
    expect(out.kept).toBe("first");
    expect(out.files.filter((f) => !f.endsWith(".lock"))).toHaveLength(1);
  });
});
