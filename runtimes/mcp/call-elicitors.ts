import type { CallElicitor } from "../../core/index.js";
import type { Elicitor } from "./elicitation.js";

/** One call in flight to a server, with the elicitor it brought (if any). */
export interface InFlightCall {
  elicit?: CallElicitor;
}

/**
 * The calls in flight to one MCP server, and who answers that server's elicitations. MCP does not
 * say which call a server's `elicitation/create` belongs to, so a call's own elicitor answers only
 * when every call in flight brought one and they all reach the same person (the same `scope`, e.g.
 * one `keel mcp serve` client session); otherwise the host's elicitor (its policy) does.
 */
export class CallElicitors {
  private readonly calls = new Set<InFlightCall>();
  /** Elicitations being answered on behalf of calls: the calls still in flight of each, and what to do once none is. */
  private readonly watches = new Set<{ calls: Set<InFlightCall>; stop: () => void }>();

  /** Records a call starting; pass the returned handle to `end` when it settles. */
  begin(elicit: CallElicitor | undefined): InFlightCall {
    const call = { elicit };
    this.calls.add(call);
    return call;
  }

  /** Records a call ending. */
  end(call: InFlightCall): void {
    this.calls.delete(call);
    for (const watch of this.watches) {
      watch.calls.delete(call);
      if (watch.calls.size !== 0) continue;
      this.watches.delete(watch);
      watch.stop();
    }
  }

  /**
   * For an elicitation arriving now: a signal that aborts once every call in flight now has ended (cancelled or
   * answered), as the elicitation was asked on their behalf and no one waits for its answer after them; `release`
   * when the elicitation is answered. Undefined when no call is in flight (a server asking on its own).
   */
  watchCallsInFlight(): { signal: AbortSignal; release: () => void } | undefined {
    if (this.calls.size === 0) return undefined;
    const ended = new AbortController();
    const watch = { calls: new Set(this.calls), stop: () => ended.abort(new Error("the calls this elicitation was asked during have ended")) };
    this.watches.add(watch);
    return { signal: ended.signal, release: () => this.watches.delete(watch) };
  }

  /** Who answers an elicitation now: the calls' common elicitor, or `fallback`. */
  pick(fallback: Elicitor): Elicitor {
    let found: CallElicitor | undefined;
    for (const { elicit } of this.calls) {
      if (!elicit || (found && (found.scope ?? found) !== (elicit.scope ?? elicit))) return fallback;
      found ??= elicit;
    }
    return found ?? fallback;
  }
}
