/** Query parameter names whose values are credentials (`?api_key=`, `?token=`, `?sig=`, `?code=`, …). */
const SECRET_PARAM = /key|token|secret|auth|pass|sig|credential|session|code|jwt/i;

/** A query value this long is treated as a credential whatever its name (`?k=<40 hex digits>`). */
const LONG_VALUE = 16;

/**
 * A path segment shorter than this is never taken for a key: the words and ids of a route (`mcp`, `sse`, `v1`,
 * `deployments`, `2024-11-05`) are short, keys are not (the query's LONG_VALUE).
 */
const LONG_SEGMENT = 16;

/** The characters of a key in a path: letters, digits and the punctuation of base64url, hex ids, UUIDs and `id:secret` pairs. */
const KEY_CHARACTERS = /^[A-Za-z0-9._~+=:-]+$/;

/** A UUID (`123e4567-e89b-12d3-a456-426614174000`): the path key of many hosted MCP endpoints. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * True when a run of a segment (between `-`, `.`, `_`, `~`, `:`) looks random: 8 or more characters mixing letters
 * and digits (`a3f9c2e1`, `sk8Xq2pL…`), or 16 or more letters with a quarter or more of them upper case and a quarter
 * lower case (a base64 token without digits). A slug's words (`server`, `everything`, `v2`, `2024`) and camelCase
 * names (`ModelContextProtocol`: a few capitals) do not.
 */
function randomRun(run: string): boolean {
  if (run.length < 8) return false;
  if (/\d/.test(run) && /[A-Za-z]/.test(run)) return true;
  if (run.length < 16) return false;
  const upper = run.replace(/[^A-Z]/g, "").length;
  const lower = run.replace(/[^a-z]/g, "").length;
  return upper * 4 >= run.length && lower * 4 >= run.length;
}

/**
 * True when a decoded path segment looks like a key (`/mcp/<key>/sse`, `/v1/<key>`, `/bot<id>:<token>/`): at least
 * LONG_SEGMENT characters of letters, digits and `._~+=:-`, and a UUID or holding a run that looks random (see
 * `randomRun`). Only such segments count, not every segment of a URL you wrote: `***` in place of `mcp` or `v1`
 * would mask that word in every message about the server (and every tool result of 8+ characters such as
 * `messages`), while a key is long and random.
 */
export function keyLikeSegment(segment: string): boolean {
  if (segment.length < LONG_SEGMENT || !KEY_CHARACTERS.test(segment)) return false;
  return UUID.test(segment) || segment.split(/[-._~:]/).some(randomRun);
}

/** `raw` decoded, or undefined when it holds a malformed escape. */
function decoded(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** True when a path segment as written in a URL (maybe percent-encoded) holds a key (see `keyLikeSegment`). */
function secretSegment(raw: string): boolean {
  const text = decoded(raw);
  return text !== undefined && keyLikeSegment(text);
}

/**
 * The parts of `url` that may carry a credential: the user name and password of `user:pass@host`,
 * the values of query parameters named like a credential or at least 16 characters long, and the
 * path segments that look like keys (`keyLikeSegment`: `https://mcp.example.com/mcp/<key>/sse`) — each
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
    const text = decoded(raw);
    if (text !== undefined) out.add(text);
  };
  add(u.username);
  add(u.password);
  for (const segment of u.pathname.split("/")) if (secretSegment(segment)) add(segment);
  for (const pair of u.search.slice(1).split("&")) {
    const eq = pair.indexOf("=");
    if (eq < 0) continue;
    const value = pair.slice(eq + 1);
    if (SECRET_PARAM.test(pair.slice(0, eq)) || value.length >= LONG_VALUE) add(value);
  }
  return [...out];
}

/**
 * `url` as keel may write or print it: the user name, password, credential query values and key-like path
 * segments (see `urlSecrets`) replaced by `***`, so an endpoint like `https://user:key@host/v1/<key>?api_key=…`
 * never lands in a session file, an event or a message the model reads. A URL that cannot be parsed is returned
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
  if (u.pathname.split("/").some(secretSegment))
    u.pathname = u.pathname
      .split("/")
      .map((s) => (secretSegment(s) ? "***" : s))
      .join("/");
  if (u.search) {
    const pairs = u.search.slice(1).split("&");
    u.search = pairs.map((p) => (p.includes("=") && secret.has(p.slice(p.indexOf("=") + 1)) ? `${p.slice(0, p.indexOf("="))}=***` : p)).join("&");
  }
  return u.href;
}

/**
 * Where a redirect's `location` (resolved against `base`) points, as keel may print it: without user
 * name, password, query or fragment, its key-like path segments `***` (see `urlForDisplay`); "an address
 * it did not name" when there is none or it cannot be parsed. Never throws.
 */
export function redirectTargetForDisplay(location: string | null | undefined, base: string): string {
  const unnamed = "an address it did not name";
  if (!location) return unnamed;
  try {
    const u = new URL(location, base);
    u.username = u.password = u.search = u.hash = "";
    return urlForDisplay(u.href);
  } catch {
    return unnamed;
  }
}
