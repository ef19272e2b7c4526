import { isPlainObject, looksSecretName, looksSecretValue, maskCommand, namesWebhook, urlSecrets } from "../../core/index.js";

/** What a hidden value shows instead. */
export const HIDDEN = "<hidden: looks like a secret>";

/** Objects whose every string value is treated as a secret: environment variables and HTTP headers (tokens live there). */
const SECRET_CONTAINERS = /^(env|environment|headers|http_headers|httpheaders|secrets?|credentials?|auth)$/i;
/**
 * Key names that name a place or a way to get a secret rather than hold one (`apiKeyEnv: "OPENAI_API_KEY"`,
 * `apiKeyHelper`, `tokenFile`, `tokenUrl`, `clientId`, `SSH_AUTH_SOCK`): config's own exception, since a config key
 * says what its value is (the environment keeps `*_FILE`/`*_DIR`/`*_SOCK` names only with an absolute path). A
 * webhook's `…Url` is not one of them: the URL is the secret.
 */
const NAMES_A_PLACE = /(env|var|variable|helper|file|path|dir|sock|socket|command|cmd|url|uri|name|id|header)s?$/i;
/**
 * keel's own settings whose names hold a secret word but whose values are choices or names, not secrets
 * (`sandbox.credentials: "visible"`, `commandEnv.pass: ["GH_TOKEN"]`).
 */
const KEEL_CHOICES: ReadonlySet<string> = new Set(["sandbox.credentials", "commandEnv.pass"]);

/**
 * Whether the value at `keys` must not be shown to whoever lists the config (the model, a
 * workflow, an MCP client, and through the tool's output keel's own event and session files):
 * strings under `env`/`headers`-like objects, under secret-named keys, or shaped like a credential.
 */
export function isSecretValue(keys: readonly string[], value: unknown): boolean {
  if (typeof value !== "string" || value === "") return false;
  if (keys.slice(0, -1).some((k) => SECRET_CONTAINERS.test(k))) return true;
  if (KEEL_CHOICES.has(keys.join("."))) return false;
  const last = keys[keys.length - 1] ?? "";
  // keel's one vocabulary (core/secret-words.ts) at display cost: hiding costs only a placeholder in a listing.
  if (looksSecretName(last, "display") && (!NAMES_A_PLACE.test(last) || namesWebhook(last))) return true;
  // A URL with a password or a credential in its query, as keel judges endpoint URLs everywhere (core/url-secrets.ts).
  return looksSecretValue(value) || (/^[a-z][\w+.-]*:\/\//i.test(value) && urlSecrets(value).length > 0);
}

/** Keys whose value is a command line (a hook's `command`, `apiKeyHelper`, `statusLine.command`): shown with its credentials masked. */
const COMMAND_KEY = /(^|[a-z_])(command|cmd|helper)$/i;

/** A copy of `value` (found at `keys`) with every secret string replaced by HIDDEN (a command line's credentials by ***), and how many were replaced. */
export function hideSecrets(keys: readonly string[], value: unknown): { value: unknown; hidden: number } {
  let hidden = 0;
  const walk = (at: readonly string[], v: unknown): unknown => {
    if (isSecretValue(at, v)) {
      hidden++;
      return HIDDEN;
    }
    // A command line stays readable, with its tokens, webhook URL paths and `KEY=value`s masked as hook events show
    // it, at every level: the listing judges values, not where they came from, and a workspace layer is not always
    // the repository's own (`.keel/config.local.json` and `.claude/settings.local.json` are personal and uncommitted);
    // a committed hook loses only a `***` its file (and `--show-secrets`) still shows.
    if (typeof v === "string" && COMMAND_KEY.test(at[at.length - 1] ?? "")) {
      const masked = maskCommand(v);
      if (masked !== v) hidden++;
      return masked;
    }
    if (Array.isArray(v)) return v.map((x) => walk(at, x));
    if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk([...at, k], x)]));
    return v;
  };
  const out = walk(keys, value);
  return { value: out, hidden };
}
