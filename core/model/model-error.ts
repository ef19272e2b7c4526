import { KeelError } from "../errors.js";

/** A model call failed; the message says what to fix (key, URL, model name, limits). */
export class ModelError extends KeelError {
  override readonly exitCode = 1;
  constructor(
    message: string,
    /** True when retrying later may succeed (rate limits, overload, timeouts). */
    readonly transient = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
