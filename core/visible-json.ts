/** What `JSON.stringify` leaves raw that a terminal hides or reorders: DEL and C1 controls, invisible format characters (zero-width, bidi, tag characters, BOM), line and paragraph separators. */
const INVISIBLE = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * A value as JSON that shows all it holds (a tool call's input, a logged event, `--json` output):
 * `JSON.stringify` (one line, or indented by `space`), with every character a terminal would hide or
 * reorder written as its `\uXXXX` escape (still the same JSON value: such characters can only stand
 * inside strings). Never throws: a value JSON cannot hold (a cycle, a BigInt) is shown with `String`.
 */
export function visibleJson(input: unknown, space?: number): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(input, null, space);
  } catch {
    json = undefined;
  }
  return (json ?? String(input)).replace(INVISIBLE, (c) =>
    Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join(""),
  );
}

/**
 * The arguments a model wrote for a call, as the call will run with them: parsed as the agent loop
 * parses them (`JSON.parse`: a repeated key's last value wins, `\u` escapes are decoded) and shown
 * by `visibleJson`, so `{"command":"ls","\u0063ommand":"rm -rf ~"}` reads `{"command":"rm -rf ~"}`.
 * Text that is not JSON (the call fails validation and never runs) comes back as `visibleJson` of the string.
 */
export function callArgumentsText(raw: string): string {
  let input: unknown;
  try {
    input = raw.trim() ? JSON.parse(raw) : {};
  } catch {
    return visibleJson(raw);
  }
  return visibleJson(input);
}
