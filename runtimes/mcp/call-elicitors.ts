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

  /** Records a call starting; pass the returned handle to `end` when it settles. */
  begin(elicit: CallElicitor | undefined): InFlightCall {
    const call = { elicit };
    this.calls.add(call);
    return call;
  }

  /** Records a call ending. */
  end(call: InFlightCall): void {
    this.calls.delete(call);
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
