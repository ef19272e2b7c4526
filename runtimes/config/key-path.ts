import { isPlainObject, ToolError } from "../../core/index.js";

const HELP = `use dots between keys and ["..."] for a key containing a dot, e.g. permissions.deny or mcp["my.server"].lazy`;

/**
 * Parses a key path: `a.b.c`, `a["b.c"].d`, `a['x']`, `list[0]`. Throws ToolError
 * (schema_invalid) saying how to write it instead.
 */
export function parseKeyPath(text: string): string[] {
  const keys: string[] = [];
  let i = 0;
  const fail = (why: string): never => {
    throw new ToolError(`Invalid key_path ${JSON.stringify(text)}: ${why}; ${HELP}.`, "schema_invalid");
  };
  if (text.trim() === "") fail("it is empty");
  let expectKey = true;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "[") {
      const quote = text[i + 1];
      if (quote === '"' || quote === "'") {
        let j = i + 2;
        let key = "";
        while (j < text.length && text[j] !== quote) {
          if (text[j] === "\\" && j + 1 < text.length) j++;
          key += text[j];
          j++;
        }
        if (j >= text.length || text[j + 1] !== "]") fail(`unclosed [${quote} at position ${i + 1}`);
        keys.push(key);
        i = j + 2;
      } else {
        const close = text.indexOf("]", i);
        const inner = close < 0 ? "" : text.slice(i + 1, close);
        if (!/^\d+$/.test(inner)) fail(`brackets must hold a quoted key or an index, at position ${i + 1}`);
        keys.push(inner);
        i = close + 1;
      }
      expectKey = false;
    } else if (ch === ".") {
      if (expectKey) fail(`empty key at position ${i + 1}`);
      expectKey = true;
      i++;
    } else {
      if (!expectKey) fail(`missing "." before position ${i + 1}`);
      let j = i;
      while (j < text.length && text[j] !== "." && text[j] !== "[") {
        if (text[j] === "]") fail(`unexpected "]" at position ${j + 1}`);
        j++;
      }
      keys.push(text.slice(i, j));
      i = j;
      expectKey = false;
    }
  }
  if (expectKey) fail("it ends with a dot");
  for (const key of keys) if (key === "__proto__" || key === "constructor" || key === "prototype") fail(`"${key}" is not allowed as a key`);
  return keys;
}

/** Renders keys as a path, quoting keys that need it: `a["b.c"].d`. */
export function formatKeyPath(keys: string[]): string {
  return keys.map((k, i) => (/^[^.[\]"'\s]+$/.test(k) ? (i === 0 ? k : `.${k}`) : `[${JSON.stringify(k)}]`)).join("");
}

/** The value at `keys`, or undefined. */
export function getAt(value: unknown, keys: string[]): unknown {
  let cur = value;
  for (const key of keys) {
    if (Array.isArray(cur) && /^\d+$/.test(key)) cur = cur[Number(key)];
    else if (isPlainObject(cur) && Object.hasOwn(cur, key)) cur = cur[key];
    else return undefined;
  }
  return cur;
}

/**
 * Returns a copy of `root` with `value` at `keys`, creating objects on the way. A scalar or
 * array in the way is an error (naming `where`) rather than silently replaced.
 */
export function setAt(root: Record<string, unknown>, keys: string[], value: unknown, where: string): Record<string, unknown> {
  const out = structuredClone(root);
  let cur: Record<string, unknown> | unknown[] = out;
  keys.forEach((key, i) => {
    const last = i === keys.length - 1;
    if (Array.isArray(cur)) {
      const index = Number(key);
      if (!/^\d+$/.test(key) || index > cur.length)
        throw new ToolError(
          `Cannot set ${formatKeyPath(keys)}: ${formatKeyPath(keys.slice(0, i))} is a list in ${where} and "${key}" is not an index up to ${cur.length}. Set the whole list instead.`,
          "precondition_failed",
        );
      if (last) cur[index] = value;
      else cur = descend(cur, index, keys, i, where);
    } else {
      if (last) cur[key] = value;
      else cur = descend(cur, key, keys, i, where);
    }
  });
  return out;
}

function descend(
  parent: Record<string, unknown> | unknown[],
  key: string | number,
  keys: string[],
  i: number,
  where: string,
): Record<string, unknown> | unknown[] {
  const record = parent as Record<string | number, unknown>;
  // Own keys only: `toString.x` names a key of the config, not Object.prototype's function.
  const next = Object.hasOwn(record, key) ? record[key] : undefined;
  if (next === undefined) {
    const created: Record<string, unknown> = {};
    record[key] = created;
    return created;
  }
  if (isPlainObject(next) || Array.isArray(next)) return next;
  throw new ToolError(
    `Cannot set ${formatKeyPath(keys)}: ${formatKeyPath(keys.slice(0, i + 1))} is ${JSON.stringify(next)} in ${where}, not an object. Set ${formatKeyPath(keys.slice(0, i + 1))} itself, or choose another key.`,
    "precondition_failed",
  );
}

/** Every leaf (scalar, list or empty object) as `[keys, value]`, in document order. */
export function leaves(value: Record<string, unknown>, prefix: string[] = []): [string[], unknown][] {
  const out: [string[], unknown][] = [];
  for (const [key, v] of Object.entries(value)) {
    const keys = [...prefix, key];
    if (isPlainObject(v) && Object.keys(v).length > 0) out.push(...leaves(v, keys));
    else out.push([keys, v]);
  }
  return out;
}
