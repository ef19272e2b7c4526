import { createRequire } from "node:module";
import type picomatch from "picomatch";
import type { RE2JS } from "re2js";
import { expandBraces } from "./glob/brace-expand.js";
import { compileLinearGlob, type LinearGlobOptions } from "./glob/linear-glob.js";

const require = createRequire(import.meta.url);

/** A compiled glob, or why it could not be compiled into a matcher of bounded cost. */
export type CompiledGlob = { match: (input: string) => boolean } | { unsupported: string };

/**
 * Compiles a glob (picomatch syntax and semantics) into a matcher whose time is linear in the input
 * and the pattern, whoever wrote the pattern: a deny rule like `*a*a*a*a*a*a*a*b` from an untrusted
 * workspace cannot hang a walk. The documented subset (`*`, `**`, `?`, `[...]`, `{a,b}`) is matched
 * by keel's own segment matcher (brace groups expand to at most a few hundred patterns); anything
 * else is compiled by picomatch and run on RE2 (re2js), which has no backtracking. A pattern neither
 * can take (picomatch's output for extglobs like `!(x)` needs lookaheads RE2 lacks) is `unsupported`,
 * and the caller decides what failing closed means for it (see `globMatcher`). Never throws.
 */
export function compileGlob(pattern: string, options: LinearGlobOptions = {}): CompiledGlob {
  const expanded = expandBraces(pattern);
  const linear = expanded?.map((p) => compileLinearGlob(p, options));
  if (linear && linear.every((m) => m !== undefined)) {
    const matchers = linear as ((input: string) => boolean)[];
    return { match: asPicomatch(pattern, matchers.length === 1 ? matchers[0]! : (input) => matchers.some((m) => m(input))) };
  }
  let re: RE2JS;
  try {
    const source = (require("picomatch") as typeof picomatch).makeRe(pattern, { dot: options.dot === true }).source;
    re = (require("re2js") as typeof import("re2js")).RE2JS.compile(source);
  } catch {
    return {
      unsupported: `the glob "${pattern}" uses syntax keel cannot match in bounded time (extglobs such as !(x) or *(x), or [!...] classes); use *, **, ?, [...] and {a,b}`,
    };
  }
  return { match: asPicomatch(pattern, (input) => re.test(input)) };
}

/** picomatch's rules around the expression: the empty string never matches, the pattern's own text always does. */
function asPicomatch(pattern: string, match: (input: string) => boolean): (input: string) => boolean {
  return (input) => input !== "" && (input === pattern || match(input));
}

/**
 * A matcher for `pattern` (see `compileGlob`). A pattern that cannot be compiled matches according
 * to `onUnsupported`: `"all"` where matching is the safe answer (deny and ask rules, exclusion
 * lists: a rule that cannot be checked still holds, conservatively, for everything), `"none"`
 * where not matching is (allow rules, inclusion lists: it simply allows nothing). The libraries are
 * loaded only when needed, so a command without globs never loads them.
 */
export function globMatcher(pattern: string, options: LinearGlobOptions, onUnsupported: "all" | "none"): (input: string) => boolean {
  const compiled = compileGlob(pattern, options);
  if ("match" in compiled) return compiled.match;
  return onUnsupported === "all" ? () => true : () => false;
}
