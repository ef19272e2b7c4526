/**
 * The OAuth tokens one server's auth session has sent: read through the reader the session hands
 * over before its first request (they change on a refresh), and remembered, so a token replaced by
 * a refresh stays a secret.
 */
export class SentTokens {
  private read?: () => string[];
  private readonly seen = new Set<string>();

  /** Reads the current auth session's tokens through `read` from now on. */
  follow(read: () => string[]): void {
    this.read = read;
  }

  /** `configured` followed by every token sent so far (`configured` itself when none was). */
  withConfigured(configured: string[]): string[] {
    for (const token of this.read?.() ?? []) this.seen.add(token);
    return this.seen.size ? [...configured, ...this.seen] : configured;
  }
}
