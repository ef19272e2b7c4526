import { envValue, ManifestError } from "../../core/index.js";

/** Result of expanding `${VAR}` / `${VAR:-default}` in a string. */
export interface Expansion {
  value: string;
  /** Variables that were unset and had no default. */
  unset: string[];
  /**
   * Non-empty values substituted from the environment: secrets as far as keel knows, to be
   * redacted wherever they could be written or printed. Defaults (written in the manifest) and
   * the values of well-known non-secret variables (`HOME`, `PATH`, … see NON_SECRET_VARS) are not listed.
   */
  secrets: string[];
}

/**
 * Variables whose values are never secrets (paths and names every process sees). Their values
 * are left out of `secrets`: redacting `$HOME` would mangle every path keel prints.
 */
export const NON_SECRET_VARS: ReadonlySet<string> = new Set(["HOME", "USER", "USERNAME", "LOGNAME", "PWD", "SHELL", "PATH", "TMPDIR", "TMP", "TEMP", "LANG"]);

/**
 * Most characters `${VAR}` references may add to one server's entry (4 Mi): a manifest writing `${LS_COLORS}`
 * 100,000 times would otherwise expand your environment into hundreds of megabytes.
 */
export const MAX_EXPANDED_CHARS = 4 * 1024 * 1024;

/** What expansions may still add (characters); shared by the expansions of one server entry. */
export interface ExpansionBudget {
  chars: number;
}

const PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** A `${VAR}` or `${VAR:-default}` reference keel expands (group 1: the name). */
export const VAR_REFERENCE: RegExp = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g;

/**
 * The `${…}` forms in `text` keel does not expand, left as written: VS Code's `${input:token}` and
 * `${env:HOME}`, shell forms such as `${VAR-default}` or `${VAR:=x}`, `${}` and an unclosed `${`.
 */
export function unsupportedForms(text: string): string[] {
  return [...text.matchAll(/\$\{[^}]*\}?/g)].map((m) => m[0]).filter((form) => !/^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}$/.test(form));
}

/**
 * Expands `${VAR}` and `${VAR:-default}` from `env`. An unset (or empty, with `:-`) variable
 * takes its default; an unset variable without a default is reported in `unset` and left as written.
 * Throws ManifestError when the values substituted exceed `budget` (which they use up).
 */
export function expandVars(text: string, env: NodeJS.ProcessEnv, budget: ExpansionBudget = { chars: MAX_EXPANDED_CHARS }): Expansion {
  const unset: string[] = [];
  const secrets: string[] = [];
  const value = text.replace(PATTERN, (whole, name: string, fallback: string | undefined) => {
    const v = envValue(env, name);
    budget.chars -= (v === undefined || v === "" ? (fallback ?? whole) : v).length;
    if (budget.chars < 0)
      throw new ManifestError(
        `its \${VAR} references expand to more than ${MAX_EXPANDED_CHARS} characters (\${${name}} among them); keel does not expand an entry that far. Reference each variable fewer times.`,
      );
    if (v !== undefined && v !== "" && !NON_SECRET_VARS.has(name)) secrets.push(v);
    if (fallback !== undefined) return v === undefined || v === "" ? fallback : v;
    if (v === undefined) {
      unset.push(name);
      return whole;
    }
    return v;
  });
  return { value, unset, secrets };
}

/** Expands every value of a string map; collects unset names (and, when given, the substituted secrets). Throws as expandVars does. */
export function expandMap(
  map: Record<string, string>,
  env: NodeJS.ProcessEnv,
  unset: string[],
  secrets?: string[],
  budget: ExpansionBudget = { chars: MAX_EXPANDED_CHARS },
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) {
    const e = expandVars(v, env, budget);
    for (const name of e.unset) unset.push(name); // no spread: a string may hold 100,000s of references
    if (secrets) for (const secret of e.secrets) secrets.push(secret);
    out[k] = e.value;
  }
  return out;
}
