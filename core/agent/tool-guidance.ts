import type { GuidanceEntry } from "../hooks.js";
import type { Observation } from "../types.js";

/**
 * The guidance message for one tool call, or undefined when plugins said nothing:
 * ``Plugin tool runtime guidance for `<tool>`:`` then `- Before tool:`, `- Blocked:` and
 * `- After result:` entries (a text's further lines indented, see `entry`).
 */
export function toolGuidanceMessage(observation: Observation): string | undefined {
  const lines: string[] = [];
  for (const m of observation.messages?.beforeTool ?? []) lines.push(entry("- Before tool: ", m));
  if (observation.code === "tool_blocked") {
    const by = observation.metadata?.plugin_name;
    lines.push(entry(`- Blocked: ${by ? `${String(by)}: ` : ""}`, observation.content));
  }
  for (const m of observation.messages?.afterResult ?? []) lines.push(entry("- After result: ", m));
  if (lines.length === 0) return undefined;
  return [`Plugin tool runtime guidance for \`${observation.tool}\`:`, ...lines].join("\n");
}

/** Renders lifecycle-hook texts under a heading (`Plugin before-prompt hooks:`), one `- source: text` entry each (further lines indented), or undefined when empty. */
export function hookTextsMessage(heading: string, entries: GuidanceEntry[]): string | undefined {
  if (entries.length === 0) return undefined;
  return [heading, ...entries.map((e) => entry(`- ${e.source}: `, e.text))].join("\n");
}

/** Line breaks of a text (as models read them). */
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/g;

/**
 * One `- source: text` entry (or any `prefix` + text), its further lines indented by 2 spaces: a text
 * (a workspace plugin's) cannot begin a line that reads as another source's entry or as a heading of its own.
 */
export function entry(prefix: string, text: string): string {
  return prefix + text.replace(LINE_BREAK, "\n  ");
}

/** The text the model sees for an observation (errors carry their code). */
export function observationText(observation: Observation): string {
  const base = observation.ok ? observation.content : `Error (${observation.code}): ${observation.content}`;
  const full = observation.truncated && observation.artifacts.length ? `\n[Output truncated; full text in ${observation.artifacts[0]!.path}]` : "";
  return base + full;
}
