import { mkdirSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { OAuthStore } from "../../../runtimes/mcp/oauth-store.js";
import { tempDirForTest } from "../../helpers/temp-workspace.js";

describe("the MCP login store's lock taken over while keel holds it", () => {
  it("update does not write over what the process that took it over wrote (old code: it wrote through, a lost login)", async () => {
    const home = tempDirForTest("oauth-lock-");
    const store = new OAuthStore(home);
    const url = "https://mcp.example.com/mcp";
    await store.write(url, { serverUrl: url, tokens: { access_token: "first", token_type: "Bearer" } });
    const file = store.fileFor(url);
    // withFileLock says a take-over on stderr (its default notice): watched here, the only way to see it from outside.
    const stderr = vi.spyOn(process.stderr, "write");
    try {
      const update = store.update(url, async (cur) => {
        // Another process takes the lock over (this holder could not re-date it for 10 s: a machine that slept) and saves its login.
        rmSync(`${file}.lock`, { recursive: true });
        mkdirSync(`${file}.lock`);
        const other = new Date(Date.now() - 60_000); // a time that cannot be the holder's own
        utimesSync(`${file}.lock`, other, other);
        await new OAuthStore(home).write(url, { serverUrl: url, tokens: { access_token: "theirs", token_type: "Bearer" } });
        // The holder finds out at its next re-dating of the lock (every 2 s).
        await vi.waitFor(() => expect(stderr.mock.calls.map((c) => String(c[0])).join("")).toContain("another process took over"), {
          timeout: 60_000,
          interval: 100,
        });
        return { ...cur, tokens: { access_token: "mine", token_type: "Bearer" } };
      });
      await expect(update).rejects.toThrow(/was not written: another process took over its lock/);
    } finally {
      stderr.mockRestore();
      rmSync(`${file}.lock`, { recursive: true, force: true });
    }
    expect(JSON.parse(readFileSync(file, "utf8")).tokens.access_token).toBe("theirs");
  });
});
