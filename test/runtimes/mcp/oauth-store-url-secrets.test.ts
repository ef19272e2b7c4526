import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OAuthStore } from "../../../runtimes/mcp/oauth-store.js";
import { tempDirForTest } from "../../helpers/temp-workspace.js";

describe("a login the MCP login store cannot save", () => {
  it("names the server's URL without its credentials (the message is printed: a refresh that was not saved warns on stderr)", async () => {
    const store = new OAuthStore(tempDirForTest("oauth-url-"));
    const url = "https://user:hunter2@mcp.example.com/mcp/3f9a8c7e2b1d4f6a9c8e7b2a1d3f5e6c?api_key=sk-SECRETSECRET";
    // A real failure: a folder with a file in it stands where the record goes, so the atomic rename fails.
    const file = store.fileFor(url);
    mkdirSync(file, { recursive: true });
    writeFileSync(join(file, "x"), "x");
    const error = await store.write(url, { serverUrl: url, tokens: { access_token: "a", token_type: "Bearer" } }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.name).toBe("StateError");
    expect(error?.message).toMatch(/^Could not save the login of https:\/\/\*\*\*.*mcp\.example\.com.* to /);
    // Old code: the URL as configured, password, key-like path segment and api_key value included.
    for (const secret of ["hunter2", "3f9a8c7e2b1d4f6a9c8e7b2a1d3f5e6c", "sk-SECRETSECRET"]) expect(error?.message).not.toContain(secret);
    expect(error?.message).toContain("The file keeps what it held before.");
  });
});
