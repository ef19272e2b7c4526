import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "../../manifests/mcp/mcp-server-config.js";
import { LOGIN_TIMEOUT_MS, LoopbackCallback } from "./loopback-callback.js";
import { checkAuthorizationServer, IssuerBindingError } from "./issuer-binding.js";
import { mcpTransportFetch } from "./oauth-bounded-fetch.js";
import { oauthFetch } from "./oauth-fetch.js";
import type { StartDeadline } from "./start-deadline.js";
import { LoginRequiredError, StoredOAuthProvider } from "./oauth-provider.js";
import { type OAuthStore, pendingScope } from "./oauth-store.js";

/** What an HTTP/SSE transport gets for OAuth: the SDK provider and the fetch it should use. */
export interface McpAuthSession {
  provider: OAuthClientProvider;
  fetch: FetchLike;
  /** Scopes the next login must add: a tool asked for more than the stored token was granted. */
  pendingScope?: string;
  /** True when this start may wait for the user in a browser (that wait is left out of the start-up deadline). */
  waitsForUser?: boolean;
}

/** Shows an authorization URL to the user; the code comes back to keel's loopback callback. */
export type OpenUrl = (url: URL) => Promise<void>;

/**
 * OAuth for the MCP servers of one host: makes each HTTP/SSE server's provider from the manifest's
 * `oauth` (authorization code by default, `client_credentials` with a secret or a private key) and
 * the OAuthStore. A server starts non-interactively (stored tokens, refreshed; otherwise
 * `needs_login`) unless it was made interactive with `interactive()` (`keel mcp login`) or the host
 * has a default `openUrl` (a test playing the browser).
 */
export class McpAuth {
  private readonly openers = new Map<string, { openUrl: OpenUrl; timeoutMs?: number }>();
  private readonly callbacks = new Set<LoopbackCallback>();

  constructor(
    readonly store: OAuthStore,
    private readonly defaultOpenUrl?: OpenUrl,
    private readonly loginTimeoutMs = LOGIN_TIMEOUT_MS,
    /** What every request of these sessions goes out through (the host's fetch: its proxy honoured). */
    private readonly base: FetchLike = fetch,
    /** Shows the user a warning (the host's `notice`): refreshed tokens that could not be saved. */
    private readonly notice?: (line: string) => void,
  ) {}

  /** The next start of server `name` may log in: authorization URLs go to `openUrl`; the browser has `timeoutMs` (default 5 min) to come back. */
  interactive(name: string, openUrl: OpenUrl, timeoutMs?: number): void {
    this.openers.set(name, { openUrl, timeoutMs });
  }

  /**
   * The provider and fetch for a server (undefined for stdio). Interactive starts listen on a
   * loopback port until `close`; their wait for the browser is excluded from `deadline`.
   */
  async forServer(server: McpServerConfig, deadline?: StartDeadline): Promise<McpAuthSession | undefined> {
    if (server.transport === "stdio" || !server.url) return undefined;
    if (server.oauth?.grantType === "client_credentials")
      return { provider: await machineProvider(server, this.store), fetch: oauthFetch(server, this.store, undefined, mcpTransportFetch(this.base)) };
    if (server.oauth?.grantType === "cross_app_access") {
      const { crossAppAccessProvider } = await import("./cross-app-access.js");
      return {
        provider: await crossAppAccessProvider(server, this.store, this.base),
        fetch: oauthFetch(server, this.store, undefined, mcpTransportFetch(this.base)),
      };
    }
    const own = this.openers.get(server.name);
    const openUrl = own?.openUrl ?? this.defaultOpenUrl;
    const timeoutMs = own?.timeoutMs ?? this.loginTimeoutMs;
    const stored = await this.store.read(server.url);
    if (!openUrl)
      return {
        provider: await StoredOAuthProvider.create(server, this.store, undefined, stored, this.notice),
        fetch: oauthFetch(server, this.store, undefined, mcpTransportFetch(this.base)),
        pendingScope: pendingScope(stored),
      };
    const fixed = server.oauth?.callbackPort;
    const cb = await LoopbackCallback.listen(
      fixed ?? portOf((stored.client as { redirect_uris?: string[] } | undefined)?.redirect_uris?.[0]),
      fixed === undefined,
    );
    this.callbacks.add(cb);
    let armed = false;
    const provider = await StoredOAuthProvider.create(server, this.store, {
      redirectUrl: cb.redirectUrl,
      state: cb.state,
      openUrl: async (url) => {
        if (!armed) throw new LoginRequiredError(`MCP server "${server.name}" needs a login: run \`keel mcp login ${server.name}\`.`);
        await openUrl(url);
      },
    });
    const sdk = await import("@modelcontextprotocol/sdk/client/auth.js");
    const wait = (p: Promise<string>) => (deadline ? deadline.excluding(p) : p);
    return {
      provider,
      waitsForUser: true,
      fetch: oauthFetch(
        server,
        this.store,
        {
          sdk,
          provider,
          arm: (on) => (armed = on),
          reset: () => cb.reset(),
          widen: (scope) => provider.requireScope(scope),
          waitForCode: () =>
            wait(cb.waitForCode(timeoutMs)).catch((error: Error) => {
              // An unfinished login leaves the server waiting for one (not failed): keep what went wrong.
              throw Object.assign(new LoginRequiredError(error.message, { cause: error }), { reason: error.message });
            }),
        },
        mcpTransportFetch(this.base),
      ),
    };
  }

  /** Stops every loopback listener. */
  async close(): Promise<void> {
    await Promise.all([...this.callbacks].map((cb) => cb.close()));
    this.callbacks.clear();
  }
}

/**
 * `client_credentials` for machines: the SDK's ClientCredentialsProvider (client_secret_basic) or
 * PrivateKeyJwtProvider (private_key_jwt), with tokens kept in the store instead of memory so one
 * token serves several keel processes. The SDK provider is made once the authorization server is
 * known and checked (checkAuthorizationServer: `oauth.issuer`, else the MCP server's own origin),
 * so its credentials are bound to that one issuer (`expectedIssuer`) and never reach another.
 */
async function machineProvider(server: McpServerConfig, store: OAuthStore): Promise<OAuthClientProvider> {
  const ext = await import("@modelcontextprotocol/sdk/client/auth-extensions.js");
  const o = server.oauth!;
  let tokens = (await store.read(server.url!)).tokens;
  let discovered: string | undefined;
  let inner: OAuthClientProvider | undefined;
  const sdk = (): OAuthClientProvider => {
    if (inner) return inner;
    const issuer = o.issuer ?? discovered;
    if (!issuer) throw new IssuerBindingError(`MCP server "${server.name}": no authorization server was discovered yet; keel sent no credentials.`);
    const common = { clientId: o.clientId!, scope: o.scope, clientName: o.clientName ?? "keel", expectedIssuer: issuer };
    inner = o.privateKey
      ? new ext.PrivateKeyJwtProvider({ ...common, privateKey: o.privateKey, algorithm: o.algorithm ?? "RS256" })
      : new ext.ClientCredentialsProvider({ ...common, clientSecret: o.clientSecret ?? "" });
    return inner;
  };
  return {
    get redirectUrl() {
      return undefined;
    },
    get clientMetadata() {
      return sdk().clientMetadata;
    },
    clientInformation: () => sdk().clientInformation(),
    saveClientInformation: (info) => sdk().saveClientInformation?.(info),
    tokens: () => tokens,
    saveTokens: async (t: OAuthTokens) => {
      tokens = t;
      await store.update(server.url!, (cur) => ({ ...cur, tokens: t }));
    },
    redirectToAuthorization: (url) => sdk().redirectToAuthorization(url),
    saveCodeVerifier: (v) => sdk().saveCodeVerifier(v),
    codeVerifier: () => sdk().codeVerifier(),
    prepareTokenRequest: (scope) => sdk().prepareTokenRequest?.(scope),
    saveDiscoveryState: (state) => {
      checkAuthorizationServer(server, state);
      discovered = state.authorizationServerUrl;
    },
    ...(o.privateKey ? { addClientAuthentication: (headers, params, url, metadata) => sdk().addClientAuthentication!(headers, params, url, metadata) } : {}),
  };
}

function portOf(url: string | undefined): number {
  try {
    return url ? Number(new URL(url).port) || 0 : 0;
  } catch {
    return 0;
  }
}
