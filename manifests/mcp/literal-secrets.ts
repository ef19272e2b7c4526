import { urlSecrets } from "../../core/index.js";
import { NON_SECRET_VARS } from "./expand-vars.js";

/** Header names that carry credentials (`Authorization`, `Cookie`, `X-Api-Key`, `Private-Token`, …). */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie)$|key|token|secret|auth|session|signature|passw|credential/i;

/** Environment variable names that carry credentials (`GITHUB_TOKEN`, `API_KEY`, `DB_PASSWORD`, `*_PAT`, …). */
const SECRET_ENV = /token|secret|passw|key|auth|credential|session|cookie|(^|_)pat$/i;

/** A command-line option naming a credential: `--token`, `--api-key=`, `-p` is not one (too short to tell). */
const SECRET_OPTION = /^--?[\w-]*(token|secret|passw|key|auth|credential)[\w-]*$/i;

/**
 * Credentials a server's entry (as written, before expansion) holds in plain sight rather than through `${VAR}`: the user name,
 * password and key-like query values of its `url`, the values of headers and `env` variables named
 * like credentials (with an `Authorization` value's token also on its own, `Bearer <token>`), and the
 * value of a credential option in its `args` (`--token X`, `--api-key=X`), and the password of a URL
 * written as an argument or variable (`postgresql://app:pw@db/app`, `DATABASE_URL=…`). They
 * join the server's `secrets`, so they are redacted wherever keel writes or prints about the server,
 * as values taken from the environment are. Never throws.
 */
export function literalSecrets(entry: { url?: string; headers?: Record<string, string>; env?: Record<string, string>; args?: string[] }): string[] {
  const out = literal(entry.url) ? urlSecrets(entry.url) : [];
  const args = entry.args ?? [];
  args.forEach((arg, i) => {
    const eq = arg.indexOf("=");
    if (eq > 0 && SECRET_OPTION.test(arg.slice(0, eq))) out.push(arg.slice(eq + 1));
    else if (SECRET_OPTION.test(arg) && args[i + 1] !== undefined && !args[i + 1]!.startsWith("-")) out.push(args[i + 1]!);
  });
  for (const [name, value] of Object.entries(entry.headers ?? {})) {
    if (!SECRET_HEADER.test(name) || !value) continue;
    out.push(value);
    const token = /^\S+\s+(\S.*)$/.exec(value)?.[1];
    if (token) out.push(token);
  }
  for (const [name, value] of Object.entries(entry.env ?? {})) if (value && SECRET_ENV.test(name) && !NON_SECRET_VARS.has(name)) out.push(value);
  // A connection URL's password in an argument or variable (`postgresql://app:pw@db/app`, `DATABASE_URL=…`), whatever its name.
  for (const value of [...args, ...Object.values(entry.env ?? {})]) if (literal(value)) out.push(...urlPasswords(value));
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
