import { errorMessage, type Host } from "../../core/index.js";

/**
 * The host `keel mcp serve` serves, replaced as a whole when its manifests change: `reload` opens
 * a fresh host and swaps it in; calls already running finish on the host they started on, which
 * is closed once the last of them ends. Listeners hear of every swap and of every `toolsChanged`
 * of the current host (an upstream server's list changed).
 */
export class LiveHost {
  private current: Host;
  private readonly running = new Map<Host, number>();
  private readonly retired = new Set<Host>();
  private readonly listeners: ((why: string) => void)[] = [];
  private reloading: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(
    host: Host,
    private readonly open: () => Promise<Host>,
    private readonly notice: (line: string) => void,
  ) {
    this.current = host;
    this.watch(host);
  }

  /** The host new requests use. */
  get host(): Host {
    return this.current;
  }

  /** Calls `listener` after a reload and when the current host's tools change (`why` says which). */
  onChange(listener: (why: string) => void): void {
    this.listeners.push(listener);
  }

  /** Runs `fn` on the current host, which stays open until `fn` settles even if a reload retires it. */
  async use<T>(fn: (host: Host) => Promise<T>): Promise<T> {
    const host = this.current;
    this.running.set(host, (this.running.get(host) ?? 0) + 1);
    try {
      return await fn(host);
    } finally {
      const left = (this.running.get(host) ?? 1) - 1;
      if (left > 0) this.running.set(host, left);
      else {
        this.running.delete(host);
        if (this.retired.has(host)) await this.retire(host);
      }
    }
  }

  /** Opens a fresh host and swaps it in (reloads asked for while one runs are folded into one more). Never throws: a failure is a notice and the old host stays. */
  reload(why: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.reloading) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      do {
        this.again = false;
        try {
          const next = await this.open();
          if (this.closed) {
            await next.close();
            return;
          }
          const old = this.current;
          this.current = next;
          this.watch(next);
          this.retired.add(old);
          if (!this.running.has(old)) await this.retire(old);
          for (const listener of this.listeners) listener(why);
        } catch (error) {
          this.notice(`keel mcp serve: reloading after ${why} failed, still serving the previous state: ${errorMessage(error)}`);
        }
      } while (this.again && !this.closed);
    })().finally(() => (this.reloading = undefined));
    return this.reloading;
  }

  /** Closes the current host and every retired one (after a reload in progress). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.reloading;
    await Promise.all([this.current, ...this.retired].map((h) => h.close()));
  }

  private watch(host: Host): void {
    host.hooks.toolsChanged.tap("mcp-serve", (ctx) => {
      if (ctx.host !== this.current) return;
      for (const listener of this.listeners) listener(`tools of ${ctx.source} changed`);
    });
  }

  private async retire(host: Host): Promise<void> {
    this.retired.delete(host);
    await host.close();
  }
}
