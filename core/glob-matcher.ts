import { createRequire } from "node:module";
import type picomatch from "picomatch";

const require = createRequire(import.meta.url);

/**
 * A picomatch matcher for `pattern`. picomatch is required on the first call (synchronously, then
 * from Node's module cache), so a command without permission rules never loads it.
 */
export function globMatcher(pattern: string, options?: picomatch.PicomatchOptions): (input: string) => boolean {
  return (require("picomatch") as typeof picomatch)(pattern, options);
}
