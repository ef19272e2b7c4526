import { errorMessage } from "../errors.js";
import type { Observation } from "../types.js";
import { loopObservation } from "./loop-observation.js";

/**
 * A tool call's arguments parsed (`input`; none at all is `{}`), or why keel does not run the call
 * (`error`): they are not JSON, or the response was cut off by the output limit (`cutOff` tokens)
 * before any of them was written. Never throws.
 */
export function parseCallArguments(args: string, cutOff: number | undefined): { input: unknown } | { error: string } {
  // Cut off by the output limit before its arguments (see openai-model's noArgumentsYet): not a call without any.
  if (!args.trim()) return cutOff === undefined ? { input: {} } : { error: "no arguments were written" };
  try {
    return { input: JSON.parse(args) };
  } catch (error) {
    return { error: errorMessage(error) };
  }
}

/**
 * The observation of a call keel did not run because its arguments could not be parsed (`error`, from
 * parseCallArguments): cut off by the output limit when `cutOff` (tokens) is set, else not JSON.
 */
export function invalidArgumentsObservation(tool: string, error: string, cutOff: number | undefined): Observation {
  return loopObservation(
    tool,
    "validate",
    "schema_invalid",
    cutOff === undefined
      ? `The arguments of ${tool} are not valid JSON (${error}). Send a JSON object.`
      : `Your response reached the output limit (${cutOff} tokens) while writing the arguments of ${tool}: they are cut off (${error}), so the call was not run. Make it smaller (write a long file in parts, or edit it in several calls) and call again.`,
  );
}
