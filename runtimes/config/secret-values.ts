import { isPlainObject, maskCommand, urlSecrets } from "../../core/index.js";

/** What a hidden value shows instead. */
export const HIDDEN = "<hidden: looks like a secret>";

/** Objects whose every string value is treated as a secret: environment variables and HTTP headers (tokens live there). */
const SECRET_CONTAINERS = /^(env|environment|headers|http_headers|httpheaders|secrets?|credentials?|auth)$/i;
/** Key names that hold a secret… */
const SECRET_KEY = /(key|secret|token|passw(or)?d|pwd|credential|private|cookie|authorization|bearer|session)/i;
/** …unless they name where one is kept or how it is obtained (`apiKeyEnv: "OPENAI_API_KEY"`, `apiKeyHelper`, `tokenFile`). */
const NAMES_A_PLACE = /(env|var|variable|helper|file|path|command|cmd|url|uri|name|id|header)s?$/i;
/** keel's own settings whose names hold a secret word but whose values are choices, not secrets (`sandbox.credentials: "visible"`). */
const KEEL_CHOICES: ReadonlySet<string> = new Set(["sandbox.credentials"]);
/** Values shaped like a credential whatever their key: an auth scheme, a well-known token prefix, a private key. */
const SECRET_SHAPE = [
  /^\s*(bearer|basic|token|digest)\s+\S{8,}/i,
  /\b(sk-[\w-]{16,}|sk_(live|test)_\w{8,}|gh[pousr]_\w{20,}|github_pat_\w{20,}|glpat-[\w-]{16,}|xox[abposr]-[\w-]{10,}|AKIA[0-9A-Z]{16}|AIza[\w-]{30,}|hf_\w{20,}|npm_\w{30,})/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

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
  if (SECRET_KEY.test(last) && !NAMES_A_PLACE.test(last)) return true;
  // A URL with a password or a credential in its query, as keel judges endpoint URLs everywhere (core/url-secrets.ts).
  return SECRET_SHAPE.some((shape) => shape.test(value)) || (/^[a-z][\w+.-]*:\/\//i.test(value) && urlSecrets(value).length > 0);
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
    // A command line stays readable, with its tokens, webhook URL paths and `KEY=value`s masked as hook events show them.
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
