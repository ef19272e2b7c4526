import type { RE2JS } from "re2js";
import { ToolError, errorMessage } from "../errors.js";

/** A compiled grep pattern: `test(line)` runs in time linear in the line (RE2 semantics, no backtracking). */
export interface LinePattern {
  test(line: string): boolean;
}

/**
 * Compiles a grep pattern with RE2 (the re2js port): matching time is linear in the input, so a
 * catastrophic pattern such as `^(a+)+$` cannot hang a call. RE2 syntax is that of ripgrep and Go:
 * JavaScript's lookaround and backreferences are not supported and are refused with a message.
 * Throws ToolError(`execution_failed`) for an invalid pattern. The engine is loaded on first use
 * (most commands never grep).
 */
export async function compileLinePattern(pattern: string, ignoreCase: boolean): Promise<LinePattern> {
  const { RE2JS } = await import("re2js");
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    const unsupported = /\(\?[=!<]|\\[1-9]|\\k</.test(pattern);
    throw new ToolError(
      unsupported
        ? `\`pattern\` uses lookaround or a backreference, which grep does not support: grep uses RE2 syntax (like ripgrep), which runs in linear time. Rewrite the pattern without (?=…), (?!…), (?<…) or \\1 (${errorMessage(error)}).`
        : `\`pattern\` is not a valid regular expression (RE2 syntax): ${errorMessage(error)}. Escape special characters such as ( [ . * with a backslash.`,
      "execution_failed",
    );
  }
  return { test: (line) => re.test(line) };
}
