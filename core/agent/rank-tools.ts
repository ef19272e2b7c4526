import type { ToolListing } from "../registry.js";

/** Score of a query word that is a whole word of the tool's name (`weather` in `mcp__gen__weather_forecast`). */
const NAME_WORD = 3;
/** Score of a query word that is only part of a word of the name (`fore` in `weather_forecast`). */
const NAME_PART = 2;
/** Score of a query word found only in the description, and the most the description adds in all. */
const DESCRIPTION_WORD = 1;
const DESCRIPTION_CAP = 2;
/** Score of a query that is the tool's whole name: it always ranks first. */
const EXACT_NAME = 1000;

/**
 * The tools matching `query`, best first, at most `limit`. Each distinct query word counts once per
 * tool, in the first field it is found in: the name (NAME_WORD, NAME_PART), else the description
 * (DESCRIPTION_WORD, capped at DESCRIPTION_CAP in all, so repeating or stuffing words into a
 * description gains nothing over a tool whose name matches). A query that is a tool's exact name wins.
 * Ties go by name. When tools of other sources also match, one source (a plugin, an MCP server) takes
 * at most half the answer (rounded up); slots the others cannot fill go back to it in rank order.
 */
export function rankTools(tools: readonly ToolListing[], query: string, limit: number): ToolListing[] {
  const whole = query.trim().toLowerCase();
  const words = [...new Set(splitWords(whole))];
  const scored = tools
    .map((t) => ({ t, score: score(t, whole, words) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.t.name.localeCompare(b.t.name));
  const perSource = Math.max(1, Math.ceil(limit / 2));
  const taken = new Map<string, number>();
  const chosen: typeof scored = [];
  const skipped: typeof scored = [];
  for (const x of scored) {
    if (chosen.length >= limit) break;
    const key = `${x.t.source.kind}:${x.t.source.id}`;
    const n = taken.get(key) ?? 0;
    if (n >= perSource && x.score < EXACT_NAME) {
      skipped.push(x);
      continue;
    }
    taken.set(key, n + 1);
    chosen.push(x);
  }
  // the other sources had too few matches: the capped source's next best fill the answer
  for (const x of skipped) {
    if (chosen.length >= limit) break;
    chosen.push(x);
  }
  return chosen.sort((a, b) => b.score - a.score || a.t.name.localeCompare(b.t.name)).map((x) => x.t);
}

function score(t: ToolListing, whole: string, words: readonly string[]): number {
  const name = t.name.toLowerCase();
  const nameWords = new Set(splitWords(name));
  const description = t.description.toLowerCase();
  let total = name === whole ? EXACT_NAME : 0;
  let fromDescription = 0;
  for (const w of words) {
    if (nameWords.has(w)) total += NAME_WORD;
    else if (name.includes(w)) total += NAME_PART;
    else if (description.includes(w)) fromDescription += DESCRIPTION_WORD;
  }
  return total + Math.min(fromDescription, DESCRIPTION_CAP);
}

function splitWords(text: string): string[] {
  return text.split(/[^a-z0-9]+/).filter(Boolean);
}
