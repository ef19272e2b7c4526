import { type EventSink, redactDeep } from "../../core/index.js";

/** Log and progress notifications of one server recorded in a burst, before the rate applies. */
export const NOTIFICATION_BURST = 200;
/** Log and progress notifications of one server recorded per second after a burst. */
export const NOTIFICATIONS_PER_SECOND = 20;
/** Characters of one log message's `data` (as JSON) or one progress `message` that are recorded. */
export const MAX_NOTIFICATION_CHARS = 4096;

/**
 * How much of one server's log and progress notifications reaches keel's events (and through them
 * `events.jsonl`): a token bucket of NOTIFICATION_BURST events refilled at NOTIFICATIONS_PER_SECOND,
 * so a server that floods notifications cannot fill the disk or the memory; what is refused is
 * counted, for one `mcp_log` line saying so. Holds state: one per connection.
 */
export class NotificationBudget {
  private tokens: number;
  private last: number;
  private dropped = 0;

  constructor(
    private readonly burst = NOTIFICATION_BURST,
    private readonly perSecond = NOTIFICATIONS_PER_SECOND,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /**
   * Whether one more log or progress notification of MCP server `server` may become an event now;
   * when some were refused since the last one, an `mcp_log` warning on `events` says how many first.
   */
  admit(server: string, events: EventSink): boolean {
    return this.take((count) =>
      events.emit({
        type: "mcp_log",
        server,
        level: "warning",
        logger: "keel",
        data: `${count} log or progress notification(s) of MCP server "${server}" were not recorded: it sent more than ${this.burst} at once or ${this.perSecond} a second.`,
      }),
    );
  }

  /**
   * Whether one more notification may be recorded now; when it may and earlier ones were refused,
   * `onDropped` is told how many first (and the count starts again).
   */
  take(onDropped: (count: number) => void): boolean {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
    if (this.tokens < 1) {
      this.dropped++;
      return false;
    }
    this.tokens--;
    if (this.dropped) {
      const count = this.dropped;
      this.dropped = 0;
      onDropped(count);
    }
    return true;
  }
}

/**
 * A log message's `data` as recorded, with the server's `secrets` redacted in every string of it
 * (before it is serialized: a secret holding `"` or `\` inside a string that is itself JSON would
 * be escaped once more by the serialization, past what redaction recognises): itself when its
 * JSON is at most MAX_NOTIFICATION_CHARS long, else the start of that JSON as a string with a note.
 * Never throws.
 */
export function boundedData(data: unknown, secrets: readonly string[]): unknown {
  let redacted: unknown;
  let text: string | undefined;
  try {
    redacted = redactDeep(data, secrets);
    text = JSON.stringify(redacted);
  } catch {
    return "[log data that cannot be shown as JSON; left out]";
  }
  return text === undefined || text.length <= MAX_NOTIFICATION_CHARS ? redacted : boundedText(text);
}

/** `text` cut to MAX_NOTIFICATION_CHARS characters, with a note when cut. */
export function boundedText(text: string): string {
  return text.length <= MAX_NOTIFICATION_CHARS ? text : `${text.slice(0, MAX_NOTIFICATION_CHARS)}… [cut: ${text.length} characters in all]`;
}
