/** Default budget for a tool's `content`, in characters. */
export const DEFAULT_OUTPUT_BUDGET = 30_000;

/** Result of fitting text into a budget. */
export interface Truncation {
  text: string;
  truncated: boolean;
  omittedChars: number;
}

/**
 * Middle truncation: keeps the head (60%) and tail (40%) of `text`, cut at line
 * boundaries when one is near, with a marker in between. `note` is put in the marker.
 */
export function truncateMiddle(text: string, budget: number, note: string): Truncation {
  if (text.length <= budget) return { text, truncated: false, omittedChars: 0 };
  const room = Math.max(0, budget - 200);
  let headEnd = Math.floor(room * 0.6);
  let tailStart = text.length - (room - headEnd);
  const nlHead = text.lastIndexOf("\n", headEnd);
  if (nlHead > headEnd * 0.8) headEnd = nlHead + 1;
  const nlTail = text.indexOf("\n", tailStart);
  if (nlTail !== -1 && nlTail - tailStart < (text.length - tailStart) * 0.2) tailStart = nlTail + 1;
  const omitted = tailStart - headEnd;
  const marker = `\n[... ${omitted} characters truncated (${text.length} total). ${note} ...]\n`;
  return { text: text.slice(0, headEnd) + marker + text.slice(tailStart), truncated: true, omittedChars: omitted };
}

/** True when text looks binary (NUL bytes or many control characters). */
export function looksBinary(text: string): boolean {
  if (text.includes("\u0000")) return true;
  const sample = text.slice(0, 4096);
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if (c < 9 || (c > 13 && c < 32)) control++;
  }
  return sample.length > 0 && control / sample.length > 0.1;
}
