/** A signal that aborts when any of its sources does, and the way to let go of the sources. */
export interface LinkedSignal {
  /** Aborts (with the source's reason) when a source aborts, until `unlink` is called. */
  readonly signal: AbortSignal;
  /** Removes the listeners on the sources; the signal no longer follows them. Idempotent. */
  unlink(): void;
}

/**
 * `AbortSignal.any(sources)` without what it leaves behind on Node 20: a signal `AbortSignal.any` made
 * is kept for the life of the process while an abort listener is on it (even after it aborted), and
 * the MCP SDK and undici leave theirs on a request's signal; and every such signal adds an entry to
 * each source that its source keeps (a long-lived source, one per request). This one is a plain
 * controller's signal, linked by one listener per source that `unlink` removes: call it when the
 * work the signal was for has ended. Undefined sources are skipped.
 */
export function linkedSignal(sources: readonly (AbortSignal | undefined)[]): LinkedSignal {
  const controller = new AbortController();
  const linked: AbortSignal[] = [];
  const unlink = (): void => {
    for (const source of linked.splice(0)) source.removeEventListener("abort", onAbort);
  };
  function onAbort(this: AbortSignal): void {
    unlink();
    controller.abort(this.reason);
  }
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      unlink();
      controller.abort(source.reason);
      break;
    }
    source.addEventListener("abort", onAbort, { once: true });
    linked.push(source);
  }
  return { signal: controller.signal, unlink };
}
