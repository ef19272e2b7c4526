import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { McpServerConfig } from "../../manifests/mcp/mcp-server-config.js";

/** Discovery named an authorization server that the server's configured credentials are not bound to: nothing was sent to it. */
export class IssuerBindingError extends Error {
  override name = "IssuerBindingError";
}

/**
 * True when the server's `oauth` holds something only the user's own authorization server may
 * see: a client secret, a private key (`client_credentials`), or an enterprise ID token whose
 * ID-JAG is presented there (`cross_app_access`).
 */
export function hasConfiguredCredential(server: McpServerConfig): boolean {
  const o = server.oauth;
  return Boolean(o && (o.clientSecret || o.privateKey || o.grantType === "client_credentials" || o.grantType === "cross_app_access"));
}

/**
 * Checks a discovery result before anything is sent to the authorization server it names (the
 * SDK saves discovery before it registers or asks for a token). For a server without configured
 * credentials it accepts anything. With them, the authorization server must be bound: equal to
 * `oauth.issuer` when that is set, else on the origin of the MCP server URL the user configured;
 * metadata, when there is some, must name that same issuer (RFC 8414 §3.3). Issuers are compared
 * as written, except for one trailing `/`. Throws IssuerBindingError naming the discovered issuer
 * and the setting to add; never sends anything.
 */
export function checkAuthorizationServer(
  server: McpServerConfig,
  state: Pick<OAuthDiscoveryState, "authorizationServerUrl" | "authorizationServerMetadata">,
): void {
  if (!hasConfiguredCredential(server)) return;
  const as = String(state.authorizationServerUrl);
  const named = state.authorizationServerMetadata?.issuer;
  const what = server.oauth!.privateKey ? "private key" : server.oauth!.grantType === "cross_app_access" ? "enterprise ID token" : "client secret";
  const where = `MCP server "${server.name}" (${server.origin.file})`;
  if (named !== undefined && !sameIssuer(named, as))
    throw new IssuerBindingError(
      `${where}: the authorization server at ${as} says its issuer is "${named}" (they must be identical, RFC 8414); keel did not send it the ${what}.`,
    );
  const configured = server.oauth!.issuer;
  if (configured !== undefined) {
    if (sameIssuer(configured, as)) return;
    throw new IssuerBindingError(
      `${where} names authorization server "${named ?? as}", but oauth.issuer is "${configured}"; keel sends the ${what} only to that issuer and sent nothing. If the server has really moved, change oauth.issuer after checking the new one is yours.`,
    );
  }
  if (originOf(as) === originOf(server.url!)) return;
  throw new IssuerBindingError(
    `${where} names authorization server "${named ?? as}", which is not on the server's own origin (${originOf(server.url!)}); keel sends a configured ${what} only to an authorization server you name and sent nothing. If that issuer is yours, add "issuer": "${named ?? as}" to the server's oauth settings in ${server.origin.file}.`,
  );
}

/** Two issuer identifiers that are the same string, or differ only by one trailing `/`. */
export function sameIssuer(a: string, b: string): boolean {
  return a === b || a === `${b}/` || b === `${a}/`;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
