import { looksSecretName, looksSecretValue } from "./secret-words.js";

/**
 * A name that says its value is where something is (`SSL_KEY_FILE`, `GNUPG_KEY_DIR`, `SSH_AUTH_SOCK`), kept when the
 * value is an absolute path. The environment's own exception: taking the variable away would break the program that
 * reads the file, while the sandbox hides credential stores themselves. Where a value is only displayed (a config
 * listing, a command line in an event) keel masks it anyway.
 */
const LOCATION_NAME = /_(FILE|PATH|DIR|SOCK|SOCKET)$/i;

/**
 * A URL with a password in it: `postgres://user:pw@host/db`, `https://user:token@proxy:8080`. The environment judges
 * a URL by its password alone (a user name alone is often public, as in a Sentry DSN, and a local test database's
 * URL must pass); the display contexts use url-secrets.ts.
 */
const URL_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/@:\s]*:[^/@\s]+@/i;

/** A proxy variable: curl, undici's EnvHttpProxyAgent and keel (core/net/proxy-settings.ts) read its value without a scheme as `http://`. */
const PROXY_NAME = /^(?:https?|all|ftp)_proxy$/i;

/**
 * `value` as the URL it means: a proxy variable's value without a scheme (`HTTPS_PROXY=me:pw@proxy:3128`, which keel
 * uses as `http://me:pw@proxy:3128`) with `http://` in front; any other value as it is. Never throws.
 */
export function envValueAsUrl(name: string, value: string): string {
  const trimmed = value.trim();
  return PROXY_NAME.test(name) && trimmed && !/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? `http://${trimmed}` : value;
}

/**
 * True when a variable looks like it holds a secret, in keel's one vocabulary (core/secret-words.ts) at `"remove"`
 * cost: its name contains KEY, SECRET, TOKEN, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL, CREDS, PRIVATE, COOKIE, JWT,
 * WEBHOOK, CONNECTION_STRING, AUTHORIZATION or BEARER, or has AUTH, PAT, PASS or PWD as a word (`npm_config__auth`,
 * `GITHUB_PAT`, `DB_PASS`, `MYSQL_PWD`; not the shell's `PWD`/`OLDPWD`), or its value is shaped like a credential
 * (a private key, a connection string's key, `Bearer …`, a well-known token such as `ghp_…`) or is a URL with a
 * password in it (`DATABASE_URL=postgres://u:pw@db/x`, a proxy variable's `me:pw@proxy:3128` without a scheme too; a URL without one stays). Words such as `GOPRIVATE`, `KEYRING`
 * and `KEYCLOAK` do not count. A name ending in `_FILE`, `_PATH`, `_DIR` or `_SOCK(ET)` whose value is an absolute
 * path names a place, not a secret, and stays.
 */
export function looksSecret(name: string, value: string | undefined): boolean {
  if (value !== undefined && (URL_PASSWORD.test(envValueAsUrl(name, value)) || looksSecretValue(value))) return true;
  if (!looksSecretName(name, "remove")) return false;
  return !(LOCATION_NAME.test(name) && value !== undefined && value.startsWith("/"));
}

/** True when `name` matches one of the patterns (exact names, `*` for any run of characters; case-sensitive, as variable names are). */
export function matchesAny(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.includes("*") ? globRegExp(p).test(name) : p === name));
}

function globRegExp(pattern: string): RegExp {
  return new RegExp(`^${pattern.split("*").map(escapeRegExp).join(".*")}$`);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** An environment with its secret-looking variables taken out, and their names (sorted; the `never` names are not listed). */
export interface ScrubbedEnv {
  env: Record<string, string | undefined>;
  removed: string[];
}

/**
 * `env` without the variables that look secret (`looksSecret`) unless a `pass` pattern names them,
 * and without the `never` names whatever `pass` says. Returns a new object; never throws.
 */
export function scrubSecrets(env: NodeJS.ProcessEnv, pass: readonly string[], never: readonly string[]): ScrubbedEnv {
  const out: Record<string, string | undefined> = {};
  const removed: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (never.includes(name)) continue;
    if (looksSecret(name, value) && !matchesAny(name, pass)) removed.push(name);
    else out[name] = value;
  }
  return { env: out, removed: removed.sort() };
}
