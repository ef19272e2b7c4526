// The one vocabulary for "looks like a secret": names and value shapes. Four places judge with it — the environment
// of commands the model runs (secret-env.ts), config_list/config_get (runtimes/config/secret-values.ts), literals
// in MCP manifests (manifests/mcp/literal-secrets.ts) and command lines in events and approvals (mask-command.ts);
// URLs are judged in url-secrets.ts. Each place adds only its own documented exceptions.

/**
 * How much a false positive costs where a name is judged. `"remove"`: the variable is taken out of a
 * command's environment (a build or a desktop tool that needs it breaks), so only the core words count.
 * `"display"`: the value is only shown as `***` or redacted (a config listing, a manifest literal, a header,
 * a command line in an event), so the display words (`DISPLAY_WORDS`) count too.
 */
export type SecretNameCost = "remove" | "display";

/**
 * Words that mark a name as a secret's anywhere in it, in every context: `GITHUB_TOKEN`, `apiKey`, `x-api-key`,
 * `PGPASSWORD`, `clientSecret`, `GOOGLE_APPLICATION_CREDENTIALS`, `DEPLOY_CREDS`, `SIGNING_PRIVATE`, `CI_JOB_JWT`,
 * `SLACK_WEBHOOK_URL` (its path is the secret), `SESSION_COOKIE`, `AZURE_STORAGE_CONNECTION_STRING` (holds its
 * `AccountKey`), `Authorization`, `bearer`.
 */
const SECRET_WORDS = /KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|CREDS|PRIVATE|COOKIE|JWT|WEBHOOK|CONNECTION_STRING|CONN_STR|AUTHORIZATION|BEARER/;

/**
 * Short words that mark a secret only as a whole word of the name, and, where a false positive removes a variable,
 * only as its last word (or `AUTH_CONFIG`): `npm_config__auth`, `BASIC_AUTH`, `DOCKER_AUTH_CONFIG`, `GITHUB_PAT`,
 * `DB_PASS`, `dbPass`, `SMTP_PWD`, `MYSQL_PWD` — not `AUTHOR`, `PATH`, `PATTERN`, `BYPASS`, `GIT_ASKPASS` (a
 * program's path), nor, in a command's environment, Auth.js's `AUTH_URL`/`AUTH_TRUST_HOST`.
 */
const SECRET_WHOLE_WORDS: ReadonlySet<string> = new Set(["AUTH", "PAT", "PASS", "PWD"]);

/**
 * Words that mark a secret in what goes over HTTP or is only displayed (a session id, a request signature,
 * `X-Auth-User`, `OAUTH_…`), but that a process environment uses for things every desktop and CI sets
 * (`XDG_SESSION_TYPE`, `DBUS_SESSION_BUS_ADDRESS`, `NEXTAUTH_URL`): they count only at `"display"` cost.
 * `AUTHOR` is never one (`GIT_AUTHOR_NAME`).
 */
const DISPLAY_WORDS = /SESSION|SIGNATURE|AUTH(?!OR)/;

/**
 * Names that hold a secret without a secret word as their last word, counted at `"remove"` cost too: Docker's
 * `DOCKER_AUTH_CONFIG`, Yarn's `YARN_NPM_AUTH_IDENT` (`user:password`), a `*_OAUTH` value, and CI's
 * `KUBE_CONFIG_DATA` (a base64 kubeconfig with its tokens).
 */
const REMOVE_ALSO = /AUTH_CONFIG|AUTH_IDENT$|(^|_)OAUTH$|KUBE_?CONFIG_DATA/;

/** Names that hold a secret word but are known to hold no secret (a tokenizer switch, not a token). */
const NOT_SECRET_NAMES: ReadonlySet<string> = new Set(["TOKENIZERS_PARALLELISM"]);

/** The shell's working directory, `PWD` as written (upper case): it ends in a secret word as `SMTP_PWD` does, but names no password. A key `pwd` still does. */
const SHELL_DIRECTORY = "PWD";

/**
 * Words holding a secret word that name no secret, taken out of a name before it is judged: Go's list of
 * private module paths (`GOPRIVATE`: without it `go` asks the public proxy and checksum database about
 * them), keyring backends (`PYTHON_KEYRING_BACKEND`, `PIP_KEYRING_PROVIDER`), Keycloak's and Key
 * Vault's addresses, keyboard and key-map settings. `KEYCLOAK_CLIENT_SECRET` still looks secret.
 */
const HARMLESS_WORDS = /GOPRIVATE|KEYRING|KEYCLOAK|KEYVAULT|KEYBOARD|KEYMAP|KEYTIMEOUT|MONKEY|TURNKEY|HOTKEY/g;

/** `apiKey`, `x-api-key`, `--api-key`, `API_KEY` → `API_KEY`: a name in any notation, as words joined by `_`. */
function secretNameWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toUpperCase();
}

/**
 * True when `name` (a variable, config key, header or option name, in any notation) names a secret: it contains
 * one of the secret words (`SECRET_WORDS`), or ends in the word `AUTH`, `PAT`, `PASS` or `PWD` (or is one of `REMOVE_ALSO`),
 * or, at `"display"` cost, has one of them as any word or contains `SESSION`, `SIGNATURE` or `AUTH` (not `AUTHOR`).
 * `GOPRIVATE`, `KEYRING`, `KEYCLOAK`, … do not count; `TOKENIZERS_PARALLELISM` and the shell's `PWD`/`OLDPWD` are no
 * secrets. Never throws.
 */
export function looksSecretName(name: string, cost: SecretNameCost): boolean {
  const words = secretNameWords(name);
  if (name === SHELL_DIRECTORY || NOT_SECRET_NAMES.has(words)) return false;
  const judged = words.replace(HARMLESS_WORDS, "_");
  if (SECRET_WORDS.test(judged)) return true;
  const list = judged.split("_");
  if (cost === "remove") return SECRET_WHOLE_WORDS.has(list[list.length - 1] ?? "") || REMOVE_ALSO.test(judged);
  return list.some((w) => SECRET_WHOLE_WORDS.has(w)) || DISPLAY_WORDS.test(judged) || REMOVE_ALSO.test(judged);
}

/** True when `name` names a webhook, whose URL is the secret itself (so a `*_URL`/`…Url` suffix does not make it a mere address). */
export function namesWebhook(name: string): boolean {
  return /webhook/i.test(name);
}

/**
 * A well-known token standing as a word of its own (not inside a path or identifier): OpenAI/Stripe `sk-…`,
 * GitHub `ghp_…`/`gho_…`/`github_pat_…`, GitLab `glpat-…`, Slack `xoxb-…`, AWS `AKIA…`, Google `AIza…`,
 * Hugging Face `hf_…`, npm `npm_…`, and a JWT (`eyJ….eyJ….…`, a CI job's identity token).
 */
const TOKEN_SHAPE =
  /(?<![\w./\\-])(?:sk-[\w-]{16,}|sk_(?:live|test)_\w{8,}|gh[pousr]_\w{20,}|github_pat_\w{20,}|glpat-[\w-]{16,}|xox[abposr]-[\w-]{10,}|AKIA[0-9A-Z]{16}|AIza[\w-]{30,}|hf_\w{20,}|npm_\w{30,}|eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*)/;

/** A connection string's key or password (`;AccountKey=…`, `Password=…`): the value is group 1. */
const CONNECTION_SECRET = /(?:^|["']|;\s*)(?:AccountKey|SharedAccessKey|Password|Pwd)=([^;\s"']+)/i;

/** A private key in PEM form. */
const PEM_PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/;

/** A chat webhook's URL, whose path is the secret: Slack's `https://hooks.slack.com/services/…`, Discord's `…/api/webhooks/…`. */
const WEBHOOK_URL = /^https:\/\/(?:hooks\.slack\.com\/(?:services|workflows|triggers)\/|(?:[\w-]+\.)?discord(?:app)?\.com\/api\/webhooks\/)\S+/i;

/** An HTTP authorization value: `Bearer …`, `Basic …`, `token …`, `Digest …` (at least 8 characters of credential). */
const AUTH_SCHEME_VALUE = /^\s*(?:bearer|basic|token|digest)\s+\S{8,}/i;

/**
 * The credential-shaped parts of `text`: each well-known token standing as a word, a connection string's key
 * or password, a PEM private key. Empty when there is none. Never throws.
 */
export function secretShapesIn(text: string): string[] {
  const out = [...text.matchAll(new RegExp(TOKEN_SHAPE.source, "g"))].map((m) => m[0]);
  const conn = CONNECTION_SECRET.exec(text)?.[1];
  if (conn) out.push(conn);
  const pem = PEM_PRIVATE_KEY.exec(text)?.[0];
  if (pem) out.push(pem);
  return out;
}

/**
 * True when `value` is shaped like a credential whatever its name: an authorization value (`Bearer …`), a chat
 * webhook's URL, or one holding a token, a connection string's key or a private key.
 */
export function looksSecretValue(value: string): boolean {
  return AUTH_SCHEME_VALUE.test(value) || WEBHOOK_URL.test(value) || TOKEN_SHAPE.test(value) || CONNECTION_SECRET.test(value) || PEM_PRIVATE_KEY.test(value);
}

/** `text` with every credential-shaped part (see `secretShapesIn`) replaced by `***`: a token, a connection string's key, a private key's body. Never throws. */
export function maskSecretShapes(text: string): string {
  return text
    .replace(new RegExp(TOKEN_SHAPE.source, "g"), "***")
    .replace(new RegExp(CONNECTION_SECRET.source, "gi"), (m: string, secret: string) => `${m.slice(0, -secret.length)}***`)
    .replace(new RegExp(PEM_PRIVATE_KEY.source, "g"), "-----BEGIN PRIVATE KEY-----***");
}
