import { looksSecretName, looksSecretValue, secretShapesIn, urlSecrets } from "../../core/index.js";
import { NON_SECRET_VARS } from "./expand-vars.js";

/** A command-line option (`--token`, `--api-key`); whether it names a credential is keel's one vocabulary's call. */
const OPTION = /^--?[A-Za-z][\w-]*$/;

/**
 * True when a header, variable or option name names a credential in keel's one vocabulary (core/secret-words.ts)
 * at display cost: a literal found here is only redacted from what keel shows, so `SESSION_ID` and `X-Hub-Signature`
 * count here though a command's environment keeps `XDG_SESSION_TYPE`. `-p` is no credential option (too short to tell).
 */
function secretName(name: string): boolean {
  return looksSecretName(name, "display");
}

/** `value` if it is shaped like a credential (a token, `Bearer …`, a connection string's key, a private key), with the credential parts on their own. */
function shaped(value: string): string[] {
  return looksSecretValue(value) ? [value, ...secretShapesIn(value)] : [];
}

/**
 * Credentials a server's entry (as written, before expansion) holds in plain sight rather than through `${VAR}`: the user name,
 * password and key-like query values of its `url`, the values of headers and `env` variables named
 * like credentials (with an `Authorization` value's token also on its own, `Bearer <token>`), and the
 * value of a credential option in its `args` (`--token X`, `--api-key=X`), the password of a URL
 * written as an argument, header or variable (`postgresql://app:pw@db/app`, `DATABASE_URL=…`), and any of these
 * values shaped like a credential whatever its name (`ghp_…`, `Bearer …`, a webhook URL, a private key). Names are
 * judged in keel's one vocabulary (core/secret-words.ts). They
 * join the server's `secrets`, so they are redacted wherever keel writes or prints about the server,
 * as values taken from the environment are. Never throws.
 */
export function literalSecrets(entry: { url?: string; headers?: Record<string, string>; env?: Record<string, string>; args?: string[] }): string[] {
  const out = literal(entry.url) ? urlSecrets(entry.url) : [];
  const args = entry.args ?? [];
  args.forEach((arg, i) => {
    const eq = arg.indexOf("=");
    const option = eq > 0 ? arg.slice(0, eq) : arg;
    const isSecretOption = OPTION.test(option) && secretName(option);
    if (eq > 0 && isSecretOption) out.push(arg.slice(eq + 1));
    else if (isSecretOption && args[i + 1] !== undefined && !args[i + 1]!.startsWith("-")) out.push(args[i + 1]!);
    out.push(...shaped(arg));
  });
  for (const [name, value] of Object.entries(entry.headers ?? {})) {
    if (!value) continue;
    out.push(...shaped(value));
    if (!secretName(name)) continue;
    out.push(value);
    const token = /^\S+\s+(\S.*)$/.exec(value)?.[1];
    if (token) out.push(token);
  }
  for (const [name, value] of Object.entries(entry.env ?? {})) {
    if (!value) continue;
    out.push(...shaped(value));
    if (secretName(name) && !NON_SECRET_VARS.has(name)) out.push(value);
  }
  // A connection URL's password in an argument or variable (`postgresql://app:pw@db/app`, `DATABASE_URL=…`), whatever its name.
  for (const value of [...args, ...Object.values(entry.env ?? {}), ...Object.values(entry.headers ?? {})]) if (literal(value)) out.push(...urlPasswords(value));
  // A value naming a variable is covered by expansion (its value is a secret, a default written with it is not).
  return out.filter(literal);
}

/** The password and credential query values of a URL written as a whole value (not its user name, which is often a word such as `app`). */
function urlPasswords(value: string): string[] {
  if (!/^[a-z][\w+.-]*:\/\/\S+$/i.test(value)) return [];
  let user: string;
  try {
    user = new URL(value).username;
  } catch {
    return [];
  }
  const named = new Set([user, safeDecode(user)]);
  return urlSecrets(value).filter((s) => !named.has(s));
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function literal(value: string | undefined): value is string {
  return value !== undefined && !value.includes("${");
}
