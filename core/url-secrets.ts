/** Query parameter names whose values are credentials (`?api_key=`, `?token=`, `?sig=`, `?code=`, …). */
const SECRET_PARAM = /key|token|secret|auth|pass|sig|credential|session|code|jwt/i;

/** A query value this long is treated as a credential whatever its name (`?k=<40 hex digits>`). */
const LONG_VALUE = 16;

/**
 * The parts of `url` that may carry a credential: the user name and password of `user:pass@host`,
 * and the values of query parameters named like a credential or at least 16 characters long — each
 * as written and decoded. Empty for a URL that cannot be parsed or holds none. Never throws.
 */
export function urlSecrets(url: string | undefined): string[] {
  if (!url) return [];
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const out = new Set<string>();
  const add = (raw: string) => {
    if (!raw) return;
    out.add(raw);
    try {
      out.add(decodeURIComponent(raw));
    } catch {
      // a malformed escape: the raw form is enough
    }
  };
  add(u.username);
  add(u.password);
  for (const pair of u.search.slice(1).split("&")) {
    const eq = pair.indexOf("=");
    if (eq < 0) continue;
    const value = pair.slice(eq + 1);
    if (SECRET_PARAM.test(pair.slice(0, eq)) || value.length >= LONG_VALUE) add(value);
  }
  return [...out];
}

/**
 * `url` as keel may write or print it: the user name, password and credential query values (see
 * `urlSecrets`) replaced by `***`, so an endpoint like `https://user:key@host/v1?api_key=…` never lands
 * in a session file, an event or a message the model reads. A URL that cannot be parsed is returned
 * as is. Never throws.
 */
export function urlForDisplay(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const secret = new Set(urlSecrets(url));
  if (!secret.size) return url;
  if (u.username) u.username = "***";
  if (u.password) u.password = "***";
  if (u.search) {
    const pairs = u.search.slice(1).split("&");
    u.search = pairs.map((p) => (p.includes("=") && secret.has(p.slice(p.indexOf("=") + 1)) ? `${p.slice(0, p.indexOf("="))}=***` : p)).join("&");
  }
  return u.href;
}
