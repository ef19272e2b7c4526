import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "../../manifests/mcp/mcp-server-config.js";
import { ScopeRequiredError } from "./oauth-provider.js";
import { type OAuthStore, scopeUnion } from "./oauth-store.js";

type AuthSdk = Pick<typeof import("@modelcontextprotocol/sdk/client/auth.js"), "auth" | "extractWWWAuthenticateParams">;

/** What an interactive fetch needs: the SDK's `auth()`, the provider, and the login's gate and callback. */
export interface InteractiveFetch {
  sdk: AuthSdk;
  provider: OAuthClientProvider;
  /** Lets the provider open an authorization URL (only while this fetch runs a login). */
  arm(on: boolean): void;
  /** Drops a code delivered for an earlier attempt. */
  reset(): void;
  /** Remembers the wider scope a 403 `insufficient_scope` asked for, so `auth()` authorizes it (a refresh could not widen the token). */
  widen(scope: string): Promise<void>;
  /** The next authorization code from the loopback callback. */
  waitForCode(): Promise<string>;
}

/**
 * The fetch keel gives an OAuth-enabled transport (the SDK's `auth()` uses it for discovery and
 * token requests too):
 * - the manifest's `headers` go to the MCP server's origin only, never to an authorization server;
 * - a refresh-token request runs under the server's cross-process lock, and when another keel
 *   process refreshed meanwhile its stored tokens are used instead of spending the old refresh token
 *   (a refresh whose tokens cannot be stored is still answered: the provider's saveTokens warns);
 * - interactive (`keel mcp login`, or a host given a browser): a 401, or a 403 `insufficient_scope`,
 *   from the MCP server runs the SDK's `auth()` with the challenge's scope and resource metadata,
 *   waits for the browser to come back to the loopback callback, finishes with the code and retries
 *   the request once. The same challenge is never answered twice (no authorization loops);
 * - otherwise a 403 `insufficient_scope` from the MCP server's origin (a tool wanting more than the
 *   token was granted) stores the union of the granted and the asked-for scopes as the next login's
 *   `requiredScope` and throws ScopeRequiredError: the call fails at once, with no token refresh
 *   spent on it (a refresh cannot widen scopes), and the connection stays up for the other tools.
 */
export function oauthFetch(server: McpServerConfig, store: OAuthStore, interactive?: InteractiveFetch, base: FetchLike = fetch): FetchLike {
  const origin = new URL(server.url!).origin;
  const own = Object.keys(server.headers);
  const scoped: FetchLike = (input, init) => {
    if (!own.length || new URL(String(input)).origin === origin) return base(input, init);
    const headers = new Headers(init?.headers);
    for (const name of own) headers.delete(name);
    return base(input, { ...init, headers });
  };
  const locked: FetchLike = async (input, init) => {
    const sent = refreshTokenOf(init?.body);
    if (!sent) return scoped(input, init);
    return store.locked(server.url!, async (held) => {
      const cur = await store.read(server.url!);
      if (cur.tokens?.refresh_token && cur.tokens.refresh_token !== sent) {
        const { issuer: _issuer, ...tokens } = cur.tokens;
        return new Response(JSON.stringify(tokens), { status: 200, headers: { "content-type": "application/json" } });
      }
      const res = await scoped(input, init);
      if (res.ok) {
        const tokens = (await res.clone().json()) as Record<string, unknown>;
        // The old refresh token may be spent now: a write that fails must not lose the new one for this process
        // too. The SDK hands the tokens to the provider next, whose saveTokens writes again and says what failed.
        // A lock another process took over meanwhile is not written through (`held` throws): the provider then warns the same way.
        try {
          held();
          await store.write(server.url!, { ...cur, tokens: { ...tokens, issuer: cur.tokens?.issuer } as never });
        } catch {
          // said by the provider's saveTokens
        }
      }
      return res;
    });
  };
  if (!interactive)
    return async (input, init) => {
      const res = await locked(input, init);
      if (res.status !== 403 || new URL(String(input)).origin !== origin) return res;
      const { extractWWWAuthenticateParams } = await import("@modelcontextprotocol/sdk/client/auth.js");
      const { error, scope } = extractWWWAuthenticateParams(res);
      if (error !== "insufficient_scope" || !scope) return res;
      await res.body?.cancel();
      const saved = await store.update(server.url!, (cur) => ({ ...cur, requiredScope: scopeUnion(cur.requiredScope, cur.tokens?.scope, scope) }));
      throw new ScopeRequiredError(server.name, saved.requiredScope!);
    };
  const answered = new Set<string>();
  return async (input, init) => {
    const res = await locked(input, init);
    if (new URL(String(input)).href !== new URL(server.url!).href) return res;
    const challenge = res.headers.get("www-authenticate") ?? "";
    const { sdk } = interactive;
    const params = sdk.extractWWWAuthenticateParams(res);
    const wanted = res.status === 401 || (res.status === 403 && params.error === "insufficient_scope");
    if (!wanted || answered.has(`${res.status} ${challenge}`)) return res;
    answered.add(`${res.status} ${challenge}`);
    await res.body?.cancel();
    if (res.status === 403 && params.scope) await interactive.widen(params.scope);
    const opts = { serverUrl: server.url!, resourceMetadataUrl: params.resourceMetadataUrl, scope: params.scope, fetchFn: locked };
    interactive.reset();
    interactive.arm(true);
    try {
      if ((await sdk.auth(interactive.provider, opts)) === "REDIRECT")
        await sdk.auth(interactive.provider, { ...opts, authorizationCode: await interactive.waitForCode() });
    } finally {
      interactive.arm(false);
    }
    const token = (await interactive.provider.tokens())?.access_token;
    const headers = new Headers(init?.headers);
    if (token) headers.set("authorization", `Bearer ${token}`);
    return locked(input, { ...init, headers });
  };
}

function refreshTokenOf(body: unknown): string | undefined {
  const params = body instanceof URLSearchParams ? body : typeof body === "string" ? new URLSearchParams(body) : undefined;
  return params?.get("grant_type") === "refresh_token" ? (params.get("refresh_token") ?? undefined) : undefined;
}
