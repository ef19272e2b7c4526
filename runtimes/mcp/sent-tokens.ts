/**
 * How many tokens a refresh replaced one server keeps as secrets beside its current ones (a refresh
 * replaces up to three: access, refresh and ID token; so the tokens of at least the last five).
 */
export const KEPT_REPLACED_TOKENS = 16;

/**
 * The OAuth tokens one server's auth session has sent, which its redaction hides (in tool results,
 * events, listings): the current ones, read through the reader the session hands over before its
 * first request (they change on a refresh), and the last KEPT_REPLACED_TOKENS a refresh replaced. A
 * replaced token stays a secret for a while: it may still show up (a server's error about the
 * request that carried it, a log line written later). Not forever: the SDK refreshes when the server
 * rejects the access token (a 401), so a long-lived host refreshes about as often as tokens expire —
 * every hour for many servers — and keeping every token made the secrets, and the cost of each
 * redaction, grow for the host's life. A token several refreshes old was rejected long ago, and an
 * authorization server that rotates refresh tokens no longer takes the old ones.
 */
export class SentTokens {
  private read?: () => string[];
  private current: readonly string[] = [];
  /** Replaced tokens, oldest first (a Set keeps insertion order). */
  private readonly replaced = new Set<string>();

  /** Reads the current auth session's tokens through `read` from now on. */
  follow(read: () => string[]): void {
    this.read = read;
  }

  /** `configured` followed by the current tokens and the replaced ones kept (`configured` itself when there are none). */
  withConfigured(configured: string[]): string[] {
    const now = this.read?.() ?? this.current;
    if (now.length !== this.current.length || now.some((t, i) => t !== this.current[i])) this.replace(now);
    if (!this.current.length && !this.replaced.size) return configured;
    return [...configured, ...this.current, ...this.replaced];
  }

  private replace(now: readonly string[]): void {
    for (const token of this.current) {
      if (now.includes(token)) continue;
      this.replaced.delete(token); // kept again: as the newest
      this.replaced.add(token);
    }
    for (const token of now) this.replaced.delete(token);
    for (const oldest of this.replaced) {
      if (this.replaced.size <= KEPT_REPLACED_TOKENS) break;
      this.replaced.delete(oldest);
    }
    this.current = [...now];
  }
}
