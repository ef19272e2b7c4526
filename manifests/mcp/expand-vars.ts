/** Result of expanding `${VAR}` / `${VAR:-default}` in a string. */
export interface Expansion {
  value: string;
  /** Variables that were unset and had no default. */
  unset: string[];
}

const PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${VAR}` and `${VAR:-default}` from `env`. An unset (or empty, with `:-`) variable
 * takes its default; an unset variable without a default is reported in `unset` and left as written.
 */
export function expandVars(text: string, env: NodeJS.ProcessEnv): Expansion {
  const unset: string[] = [];
  const value = text.replace(PATTERN, (whole, name: string, fallback: string | undefined) => {
    const v = env[name];
    if (fallback !== undefined) return v === undefined || v === "" ? fallback : v;
    if (v === undefined) {
      unset.push(name);
      return whole;
    }
    return v;
  });
  return { value, unset };
}

/** Expands every value of a string map; collects unset names. */
export function expandMap(map: Record<string, string>, env: NodeJS.ProcessEnv, unset: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) {
    const e = expandVars(v, env);
    unset.push(...e.unset);
    out[k] = e.value;
  }
  return out;
}
