import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "../../manifests/mcp/mcp-server-config.js";
import { checkResourceAllowed, resourceUrlFromServerUrl } from "@modelcontextprotocol/sdk/shared/auth-utils.js";
import { checkAuthorizationServer, IssuerBindingError } from "./issuer-binding.js";
import { boundedOAuthFetch } from "./oauth-bounded-fetch.js";
import type { OAuthStore } from "./oauth-store.js";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/**
 * Enterprise-managed authorization (SEP-990, "cross-app access") as an SDK `OAuthClientProvider`:
 * the SDK's `auth()` discovers the authorization server and sends the token request; this provider
 * only prepares that request's grant — it trades the user's enterprise ID token for an ID-JAG at
 * the identity provider (RFC 8693 token exchange, the one step the SDK does not do) and presents it
 * as a `jwt-bearer` assertion, authenticating with the pre-registered client. Tokens go to the store.
 * The ID-JAG's `audience` is the bound authorization server (checkAuthorizationServer: `oauth.issuer`,
 * else the MCP server's own origin) and its `resource` the MCP server's own URL; the exchange is
 * bounded in size and time and never follows a redirect with the ID token.
 */
export async function crossAppAccessProvider(server: McpServerConfig, store: OAuthStore, fetchFn: FetchLike = fetch): Promise<OAuthClientProvider> {
  const o = server.oauth!;
  const idp = o.idp!;
  let tokens = (await store.read(server.url!)).tokens;
  let discovery: OAuthDiscoveryState | undefined;
  return {
    get redirectUrl() {
      return undefined;
    },
    get clientMetadata(): OAuthClientMetadata {
      return {
        client_name: o.clientName ?? "keel",
        redirect_uris: [],
        grant_types: [JWT_BEARER],
        token_endpoint_auth_method: "client_secret_basic",
        scope: o.scope,
      };
    },
    clientInformation: () => ({
      client_id: o.clientId!,
      ...(o.clientSecret ? { client_secret: o.clientSecret } : {}),
      ...(o.issuer ? { issuer: o.issuer } : {}),
    }),
    tokens: () => tokens,
    saveTokens: async (t: OAuthTokens) => {
      tokens = t;
      await store.update(server.url!, (cur) => ({ ...cur, tokens: t }));
    },
    redirectToAuthorization: () => {
      throw new Error(`MCP server "${server.name}" uses cross-app access (no browser login); check its oauth.idp settings and the ID token.`);
    },
    saveCodeVerifier: () => undefined,
    codeVerifier: () => "",
    saveDiscoveryState: (state: OAuthDiscoveryState) => {
      checkAuthorizationServer(server, state);
      discovery = state;
    },
    prepareTokenRequest: async (scope?: string) => {
      if (!discovery) throw new IssuerBindingError(`MCP server "${server.name}": no authorization server was discovered yet; keel sent no ID token.`);
      // The ID-JAG is for the bound authorization server (checked in saveDiscoveryState) and this MCP server only.
      const audience = o.issuer ?? discovery.authorizationServerMetadata?.issuer ?? discovery.authorizationServerUrl;
      const resource = discovery.resourceMetadata?.resource ?? server.url!;
      if (!checkResourceAllowed({ requestedResource: resourceUrlFromServerUrl(server.url!), configuredResource: resource }))
        throw new IssuerBindingError(
          `MCP server "${server.name}" (${server.url}) says it is resource "${resource}"; keel asks for an ID-JAG only for the server's own URL and sent nothing.`,
        );
      if (!idp.idToken) throw new Error(`MCP server "${server.name}": no ID token in the environment variable named by oauth.idp.idTokenEnv.`);
      const body = new URLSearchParams({
        grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
        requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
        subject_token: idp.idToken,
        subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
        client_id: idp.clientId,
        resource,
        ...(audience ? { audience } : {}),
        ...(scope ? { scope } : {}),
      });
      // Bounded, and never redirected: the request carries the user's ID token.
      const res = await boundedOAuthFetch(fetchFn)(idp.tokenEndpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body,
      });
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel();
        throw new Error(
          `The identity provider answered the token exchange for MCP server "${server.name}" with a redirect (${res.status}); keel does not follow it with your ID token. Set oauth.idp.tokenEndpoint to the identity provider's token endpoint itself.`,
        );
      }
      const answer = (await res.json().catch(() => ({}))) as { access_token?: string; error?: string; error_description?: string };
      if (!res.ok || !answer.access_token)
        throw new Error(
          `The identity provider refused the token exchange for MCP server "${server.name}" (${answer.error ?? res.status}${answer.error_description ? `: ${answer.error_description}` : ""}); check oauth.idp and refresh the ID token.`,
        );
      return new URLSearchParams({ grant_type: JWT_BEARER, assertion: answer.access_token, ...(scope ? { scope } : {}) });
    },
  };
}
