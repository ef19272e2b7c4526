/**
 * Words that mark a variable's name as holding a secret (matched case-insensitively anywhere in the
 * name): `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `PGPASSWORD`, `NPM_TOKEN`, `GH_ENTERPRISE_TOKEN`, …
 */
const SECRET_WORDS = /KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE/i;

/**
 * Well-known secrets whose names miss those words: npm's `_auth`, `GITHUB_PAT`-style tokens, MySQL's
 * password variable, the short forms `DB_PASS`/`SMTP_PWD` (not the shell's `PWD`/`OLDPWD`), `*_CREDS`,
 * CI identity tokens (`CI_JOB_JWT`), webhook URLs (`SLACK_WEBHOOK_URL`: the path is the secret), cookies,
 * connection strings (`AZURE_STORAGE_CONNECTION_STRING` holds its `AccountKey`), `DOCKER_AUTH_CONFIG`.
 */
const SECRET_NAMES = /(^|_)AUTH$|_AUTH_CONFIG$|_PAT$|^MYSQL_PWD$|_(PASS|PWD)$|^PASS$|CREDS|JWT|WEBHOOK|COOKIE|CONNECTION_STRING|CONN_STR/i;

/**
 * Values shaped like a credential whatever their name: a private key, a connection string's key or
 * password (`;AccountKey=…`, `Password=…`), or the whole value a well-known token (`ghp_…`, `sk-…`, `glpat-…`, `xoxb-…`, `AKIA…`).
 */
const SECRET_VALUES = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /(^|;)\s*(AccountKey|SharedAccessKey|Password|Pwd)=[^;\s]/i,
  /^(sk-[\w-]{16,}|sk_(live|test)_\w{8,}|gh[pousr]_\w{20,}|github_pat_\w{20,}|glpat-[\w-]{16,}|xox[abposr]-[\w-]{10,}|AKIA[0-9A-Z]{16}|AIza[\w-]{30,}|hf_\w{20,}|npm_\w{30,})$/,
];

/** Names that match a secret word but are known to hold none (a tokenizer switch, not a token). */
const NOT_SECRETS: ReadonlySet<string> = new Set(["TOKENIZERS_PARALLELISM"]);

/**
 * Words holding a secret word that name no secret, taken out of a name before it is judged: Go's list of
 * private module paths (`GOPRIVATE`: without it `go` asks the public proxy and checksum database about
 * them), keyring backends (`PYTHON_KEYRING_BACKEND`, `PIP_KEYRING_PROVIDER`), Keycloak's and Key
 * Vault's addresses, keyboard and key-map settings. `KEYCLOAK_CLIENT_SECRET` still looks secret.
 */
const HARMLESS_WORDS = /GOPRIVATE|KEYRING|KEYCLOAK|KEYVAULT|KEYBOARD|KEYMAP|KEYTIMEOUT|MONKEY|TURNKEY|HOTKEY/gi;

/** A name that says its value is where something is (`SSL_KEY_FILE`, `GNUPG_KEY_DIR`), kept when the value is an absolute path. */
const LOCATION_NAME = /_(FILE|PATH|DIR|SOCK|SOCKET)$/i;

/** A URL with a password in it: `postgres://user:pw@host/db`, `https://user:token@proxy:8080`. */
const URL_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/@:\s]*:[^/@\s]+@/i;

/**
 * True when a variable looks like it holds a secret: its name contains KEY, SECRET, TOKEN,
 * PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL or PRIVATE (case-insensitive), or is a well-known secret
 * name (`*_AUTH`, `*_PAT`, `MYSQL_PWD`, `*_PASS`, `*_CREDS`, `*JWT*`, `*WEBHOOK*`, …), or its value is a URL
 * with a password in it (`DATABASE_URL=postgres://u:pw@db/x`; a URL without one stays), a private key,
 * a connection string's key or a well-known token. Words such as `GOPRIVATE`,
 * `KEYRING` and `KEYCLOAK` do not count (see `HARMLESS_WORDS`). A name ending in `_FILE`,
 * `_PATH`, `_DIR` or `_SOCK(ET)` whose value is an absolute path names a place, not a secret, and stays.
 */
export function looksSecret(name: string, value: string | undefined): boolean {
  if (value !== undefined && (URL_PASSWORD.test(value) || SECRET_VALUES.some((shape) => shape.test(value)))) return true;
  if (NOT_SECRETS.has(name.toUpperCase())) return false;
  const judged = name.replace(HARMLESS_WORDS, "_");
  if (!SECRET_WORDS.test(judged) && !SECRET_NAMES.test(judged)) return false;
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
