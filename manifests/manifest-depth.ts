/** Deepest nesting of arrays and objects keel reads in a manifest: far beyond any real manifest, far below what overflows the stack of code that walks one. */
export const MAX_MANIFEST_DEPTH = 64;

/**
 * The refusal for a parsed manifest that nests arrays and objects deeper than MAX_MANIFEST_DEPTH (a
 * hostile one would overflow the stack of whatever walks it later: schema compilation, rendering,
 * printing), or undefined. Measured without recursion. Never throws.
 */
export function tooDeepMessage(value: unknown): string | undefined {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > MAX_MANIFEST_DEPTH) return `it nests arrays and objects more than ${MAX_MANIFEST_DEPTH} levels deep, which keel does not read (flatten it)`;
    for (const child of Array.isArray(v) ? v : Object.values(v as object)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return undefined;
}
