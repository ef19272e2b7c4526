/** Formats a JSON path for diagnostics: `tool_aliases[2].base_tool`, `tool_hooks["my tool"]`. */
export function formatJsonPath(segments: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else {
      const key = String(segment);
      out += /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key) ? (out ? `.${key}` : key) : `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}

/** Joins a prefix path with zod issue segments. */
export function joinJsonPath(prefix: ReadonlyArray<PropertyKey>, rest: ReadonlyArray<PropertyKey> = []): string {
  return formatJsonPath([...prefix, ...rest]);
}
