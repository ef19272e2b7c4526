import { posix } from "node:path";
import { expandBraces } from "./brace-expand.js";
import { compileLinearGlob } from "./linear-glob.js";

/** Where a walk for one glob starts and how deep it needs to go (see `globWalkPlan`). */
export interface GlobWalkPlan {
  /** The pattern as matched: one trailing `/` dropped, `./`, `//` and `/./` normalized away (as tinyglobby does). */
  pattern: string;
  /** Leading segments without glob syntax (`src/lib` of `src/lib/*.ts`): the walk starts there. Never the last segment. */
  base: string[];
  /** Most path segments below `base` a match can have; undefined when unbounded (`**`, or syntax matched another way). */
  depth: number | undefined;
}

/** Characters that make a segment a pattern rather than a name (conservatively: `+` and `@` only matter before `(`). */
const GLOB_SYNTAX = /[*?[\]{}()!+@|\\]/;

/**
 * The walk a relative glob needs: it starts at the pattern's static prefix, so `src/lib/*.ts` reads
 * only `src/lib`, and stops at the depth the pattern can reach when it has no `**` (each segment
 * then matches exactly one path segment, for every brace alternative). Pure; never throws.
 */
export function globWalkPlan(raw: string): GlobWalkPlan {
  const pattern = posix.normalize(raw.endsWith("/") ? raw.slice(0, -1) : raw);
  const segments = pattern.split("/");
  const base: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (GLOB_SYNTAX.test(segment)) break;
    base.push(segment);
  }
  return { pattern, base, depth: reachableDepth(pattern, base.length) };
}

/** Most segments below the first `skip` a path matching `pattern` has, or undefined when that is not bounded or not known. */
function reachableDepth(pattern: string, skip: number): number | undefined {
  const alternatives = expandBraces(pattern);
  if (!alternatives) return undefined;
  // The pattern's own text always matches too (picomatch's rule), and it may have more segments than any alternative.
  let depth = pattern.split("/").length - skip;
  for (const alternative of alternatives) {
    // Only the linear matcher's subset has the one-segment-per-segment rule; the rest is not bounded here.
    if (alternative.includes("**") || compileLinearGlob(alternative) === undefined) return undefined;
    const body = alternative.startsWith("./") ? alternative.slice(2) : alternative;
    depth = Math.max(depth, body.split("/").length - skip);
  }
  return depth;
}
