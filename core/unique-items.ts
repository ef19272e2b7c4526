import type { ErrorObject, FuncKeywordDefinition } from "ajv";
import { canonicalJson } from "./canonical-json.js";

/**
 * JSON Schema's `uniqueItems` in time linear in the array (each item written once as JSON with its
 * objects' keys sorted, then looked up in a map), for ajv in place of its own, which compares every
 * pair of object or array items: 20,000 items a model sends to a tool whose schema a workspace wrote
 * took 20 seconds, and the check cannot be interrupted. Same meaning (two items are equal when they
 * are equal JSON values, whatever their keys' order) and the same error as ajv's. An item nested
 * deeper than the stack throws RangeError, which `schemaProblems` reports as too deep to check.
 */
export const uniqueItemsKeyword: FuncKeywordDefinition = {
  keyword: "uniqueItems",
  type: "array",
  schemaType: "boolean",
  errors: true,
  validate: uniqueItems,
};

function uniqueItems(this: unknown, schema: boolean, data: unknown[]): boolean {
  const self = uniqueItems as typeof uniqueItems & { errors?: Partial<ErrorObject>[] | null };
  self.errors = null;
  if (!schema) return true;
  // The pair ajv's check names: the last item equal to an earlier one, and the nearest such earlier one.
  const latest = new Map<string, number>();
  let pair: { i: number; j: number } | undefined;
  for (let i = 0; i < data.length; i++) {
    const key = canonicalJson(data[i]);
    const j = latest.get(key);
    if (j !== undefined) pair = { i, j };
    latest.set(key, i);
  }
  if (pair) {
    self.errors = [{ keyword: "uniqueItems", message: `must NOT have duplicate items (items ## ${pair.j} and ${pair.i} are identical)`, params: pair }];
    return false;
  }
  return true;
}
