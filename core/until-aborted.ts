/** What `untilAborted` settles to when its signal aborted before the answer came. */
export const ABORTED: unique symbol = Symbol("aborted");

/**
 * `answer`, or ABORTED once `signal` aborts, whichever comes first: the caller stops waiting for code that
 * ignores its signal (an embedding program's approver or elicitor), so a cancelled call ends and
 * `host.close()`, which waits for the calls in flight, settles. A later settlement is ignored.
 */
export function untilAborted<T>(answer: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    answer.catch(() => {}); // settled later or never: no one waits for it
    return Promise.resolve(ABORTED);
  }
  return new Promise<T | typeof ABORTED>((resolve, reject) => {
    const stop = (): void => resolve(ABORTED);
    signal.addEventListener("abort", stop, { once: true });
    answer.then(
      (value) => {
        signal.removeEventListener("abort", stop);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", stop);
        reject(error);
      },
    );
  });
}
