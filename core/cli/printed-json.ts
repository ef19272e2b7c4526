import { visibleJson } from "../visible-json.js";
import { ciSafeJson } from "./ci-log-commands.js";

/**
 * JSON as keel prints it (`--json` output, JSONL events, error objects): the same value `JSON.stringify`
 * gives, with invisible and reordering characters as `\u` escapes (`visibleJson`) and, in a CI runner's
 * log, logging-command prefixes escaped (`ciSafeJson`), so a terminal or runner showing it is not fooled.
 */
export function printedJson(value: unknown, env: NodeJS.ProcessEnv, space?: number): string {
  return ciSafeJson(visibleJson(value, space), env);
}
