/** A model endpoint's base URL split the way `fetch` and the `openai` client can use it. */
export interface EndpointParts {
  /** The URL without its user info and query. */
  base: string;
  /** Its query (Azure's `api-version`), sent with every request after the path. */
  query?: Record<string, string>;
  /** `Authorization: Basic …` for the user info of `https://user:pass@host/v1` (fetch refuses URLs with credentials). */
  authorization?: string;
}

/**
 * Splits a base URL into what a request can carry: `fetch` refuses a URL with user info, and the
 * `openai` client appends paths to its base URL as text, which would put `/chat/completions` inside
 * a query. A URL that cannot be parsed is returned as the base. Never throws.
 */
export function endpointParts(baseUrl: string): EndpointParts {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { base: baseUrl };
  }
  if (!url.search && !url.username && !url.password) return { base: baseUrl };
  const query = url.search ? Object.fromEntries(url.searchParams) : undefined;
  const user = `${decoded(url.username)}:${decoded(url.password)}`;
  const authorization = url.username || url.password ? `Basic ${Buffer.from(user).toString("base64")}` : undefined;
  url.search = "";
  url.username = "";
  url.password = "";
  return { base: url.toString(), ...(query ? { query } : {}), ...(authorization ? { authorization } : {}) };
}

/** `GET /models` of a base URL: after its path, with its query, user info as `authorization`. */
export function modelsEndpoint(baseUrl: string): { url: string; authorization?: string } {
  const parts = endpointParts(baseUrl);
  let url: URL;
  try {
    url = new URL(parts.base);
  } catch {
    return { url: `${baseUrl.replace(/\/+$/, "")}/models` };
  }
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/models`;
  for (const [k, v] of Object.entries(parts.query ?? {})) url.searchParams.set(k, v);
  return { url: url.toString(), ...(parts.authorization ? { authorization: parts.authorization } : {}) };
}

/** `text` with its %-escapes decoded; as written when one is malformed (`%zz`). */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
