import { describe, expect, it } from "vitest";
import { KEPT_REPLACED_TOKENS, SentTokens } from "../../../runtimes/mcp/sent-tokens.js";

/** An auth session as the SDK's provider shows it: each refresh replaces the access token and rotates the refresh token. */
function session() {
  let n = 0;
  const tokens = () => [`at-${n}`, `rt-${n}`];
  return {
    tokens,
    refresh: () => void n++,
  };
}

describe("the OAuth tokens a server's redaction hides", () => {
  it("are bounded over 1,000 refreshes: the current tokens and the last ones replaced, not every token sent", async () => {
    const sent = new SentTokens();
    const s = session();
    sent.follow(s.tokens);
    const configured = ["configured-secret"];
    expect(sent.withConfigured(configured)).toEqual(["configured-secret", "at-0", "rt-0"]);
    for (let i = 0; i < 1_000; i++) {
      s.refresh();
      // read between refreshes, as every redaction does
      sent.withConfigured(configured);
    }
    const secrets = sent.withConfigured(configured);
    // before: one access and one refresh token per refresh, kept for the host's life (2,003)
    expect(secrets.length).toBeLessThan(50);
    expect(secrets.length).toBe(1 + 2 + KEPT_REPLACED_TOKENS);
    expect(secrets.slice(0, 3)).toEqual(["configured-secret", "at-1000", "rt-1000"]);
    // the tokens the last refreshes replaced are still secrets; the oldest are not
    expect(secrets).toContain("at-999");
    expect(secrets).toContain("rt-999");
    expect(secrets).toContain(`at-${1_000 - KEPT_REPLACED_TOKENS / 2}`);
    expect(secrets).not.toContain(`at-${1_000 - KEPT_REPLACED_TOKENS / 2 - 1}`);
    expect(secrets).not.toContain("at-0");
  });

  it("a refresh token that is not rotated stays current (never counted as replaced), and a new auth session's tokens replace the old session's", () => {
    const sent = new SentTokens();
    let at = "at-a";
    sent.follow(() => [at, "rt-fixed"]);
    expect(sent.withConfigured([])).toEqual(["at-a", "rt-fixed"]);
    at = "at-b";
    expect(sent.withConfigured([])).toEqual(["at-b", "rt-fixed", "at-a"]);
    // a restart: the new session's reader
    sent.follow(() => ["at-c", "rt-new"]);
    expect(sent.withConfigured([])).toEqual(["at-c", "rt-new", "at-a", "at-b", "rt-fixed"]);
  });

  it("with no auth session: the configured secrets themselves", () => {
    const configured = ["x"];
    expect(new SentTokens().withConfigured(configured)).toBe(configured);
    const sent = new SentTokens();
    sent.follow(() => []);
    expect(sent.withConfigured(configured)).toBe(configured);
  });
});
