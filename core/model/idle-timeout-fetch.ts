import { responseWithBody } from "./response-with-body.js";

import type { Fetch } from "../net/proxy-fetch.js";

export type { Fetch } from "../net/proxy-fetch.js";

/**
 * `inner` (the global `fetch` by default) with an idle limit on each response's body: once the
 * headers are in, whenever keel waits for the body's next bytes (the first ones included) and
 * none come for `idleMs`, the body fails with the error `stalled` makes and the request is
 * aborted with it (closing the connection). Any bytes count, SSE keep-alive comments
 * (`: OPENROUTER PROCESSING`) too, so a model that thinks for minutes behind them is never cut
 * off. The time until the headers is the `openai` client's own `timeout`. The timer runs only
 * while a read waits and is unref'd: none is left once the body ends, fails or is cancelled.
 */
export function idleTimeoutFetch(idleMs: number, stalled: () => Error, inner: Fetch = fetch): Fetch {
  return async (input, init) => {
    const idle = new AbortController();
    // `AbortSignal.any` is fine here (unlike over a turn's or a run's signal, see linked-signal.ts): the
    // `openai` client hands each request its own controller's signal, which lives as long as the request,
    // and undici lets go of the signal it was given once the request is collected.
    const signal = init?.signal ? AbortSignal.any([init.signal, idle.signal]) : idle.signal;
    const res = await inner(input, { ...init, signal });
    if (!res.body) return res;
    const body = watchedBody(res.body, idleMs, () => {
      const error = stalled();
      idle.abort(error);
      return error;
    });
    return responseWithBody(res, body);
  };
}

/**
 * `body` read chunk by chunk, each read given `idleMs` to bring bytes; when one does not, the
 * stream fails with the error `onStall` returns (not an AbortError: the `openai` client ends a
 * stream that fails with one silently, as if the answer were complete).
 */
function watchedBody(body: ReadableStream<Uint8Array>, idleMs: number, onStall: () => Error): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ended = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      timer = setTimeout(() => {
        ended = true;
        controller.error(onStall());
        reader.cancel().catch(() => {});
      }, idleMs);
      timer.unref();
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (!ended) controller.error(error);
        ended = true;
        return;
      } finally {
        clearTimeout(timer);
      }
      if (ended) return;
      if (chunk.done) {
        ended = true;
        controller.close();
      } else controller.enqueue(chunk.value);
    },
    async cancel(reason) {
      ended = true;
      clearTimeout(timer);
      await reader.cancel(reason);
    },
  });
}
