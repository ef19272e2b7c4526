import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { McpServerConfig } from "../../manifests/mcp/mcp-server-config.js";
import { errorMessage } from "../../core/index.js";
import { checkAuthorizationServer, IssuerBindingError } from "./issuer-binding.js";
import { type OAuthRecord, type OAuthStore, pendingScope, scopeUnion } from "./oauth-store.js";

/** Thrown (inside the SDK's `auth()`) when a server needs a login that this process may not start: the server goes to `needs_login`. */
export class LoginRequiredError extends Error {
  override name = "LoginRequiredError";
  /** Why a login that was under way did not finish (no answer from the browser, a refused authorization), for `lastError`. */
  reason?: string;
}

/**
 * A tool call the token's scopes do not cover (403 `insufficient_scope`) where no login can run:
 * the wider scope is stored for the next `keel mcp login`, the call fails with this, the server stays connected.
 */
export class ScopeRequiredError extends Error {
  override name = "ScopeRequiredError";
  constructor(
    readonly server: string,
    /** Every scope the next login asks for (the old ones and the required ones). */
    readonly scope: string,
  ) {
    super(`MCP server "${server}" needs a wider authorization for this call (scopes: ${scope}): run \`${loginCommand(server)}\` to grant it, then call again.`);
  }
}

/** How an interactive provider sends the user to the authorization server. */
export interface InteractiveLogin {
  /** The loopback redirect URI (`http://127.0.0.1:<port>/callback`). */
  redirectUrl: string;
  /** The `state` the callback must echo. */
  state: string;
  /** Shows the authorization URL to the user (browser and/or printed); the code arrives at the loopback callback. */
  openUrl(url: URL): Promise<void>;
}

/** Placeholder redirect URI of a non-interactive provider (never used: it cannot start an authorization). */
const NO_REDIRECT = "http://127.0.0.1/callback";

/**
 * The SDK's `OAuthClientProvider` for the authorization-code flow, backed by the OAuthStore (keyed
 * by the server URL). Interactive (`keel mcp login`): registers the loopback redirect URI and
 * opens the authorization URL. Non-interactive (every other start): uses and refreshes stored
 * tokens, and throws LoginRequiredError instead of registering or redirecting.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  private verifier?: string;

  private constructor(
    private readonly server: McpServerConfig,
    private readonly store: OAuthStore,
    private record: OAuthRecord,
    private readonly interactive?: InteractiveLogin,
    private readonly notice?: (line: string) => void,
  ) {}

  /**
   * Makes the server's provider from its stored record (read here unless given). `notice` shows the user a warning
   * (the CLI: stderr) when refreshed tokens cannot be saved.
   */
  static async create(
    server: McpServerConfig,
    store: OAuthStore,
    interactive?: InteractiveLogin,
    record?: OAuthRecord,
    notice?: (line: string) => void,
  ): Promise<StoredOAuthProvider> {
    return new StoredOAuthProvider(server, store, record ?? (await store.read(server.url!)), interactive, notice);
  }

  /** The loopback redirect URI when interactive, else the registered one (never used). */
  get redirectUrl(): string {
    if (this.interactive) return this.interactive.redirectUrl;
    const client = this.record.client as { redirect_uris?: string[] } | undefined;
    return client?.redirect_uris?.[0] ?? NO_REDIRECT;
  }

  /** A client metadata document URL (`oauth.clientMetadataUrl`), used as client_id when the server supports it. */
  get clientMetadataUrl(): string | undefined {
    return this.server.oauth?.clientMetadataUrl;
  }

  /** What keel registers: a native (loopback) client that wants refresh tokens. */
  get clientMetadata(): OAuthClientMetadata {
    const o = this.server.oauth;
    return {
      client_name: o?.clientName ?? "keel",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: o?.clientSecret ? "client_secret_basic" : "none",
      ...(o?.scope ? { scope: o.scope } : {}),
    };
  }

  /** The state parameter the loopback callback checks. */
  state(): string {
    return this.interactive?.state ?? "";
  }

  /** The pre-registered client (`oauth.clientId`), else the stored registration; non-interactive without a usable token: LoginRequiredError. */
  clientInformation(): OAuthClientInformationMixed | undefined {
    if (!this.interactive && !this.record.tokens?.refresh_token) throw this.loginRequired();
    const o = this.server.oauth;
    if (o?.clientId) return { client_id: o.clientId, ...(o.clientSecret ? { client_secret: o.clientSecret } : {}), ...(o.issuer ? { issuer: o.issuer } : {}) };
    const client = this.record.client as (OAuthClientInformationMixed & { redirect_uris?: string[] }) | undefined;
    // A registration for another loopback port is not reused: the authorization server would reject the redirect.
    if (this.interactive && client?.redirect_uris && !client.redirect_uris.includes(this.interactive.redirectUrl)) return undefined;
    return client;
  }

  /** Adds `scope` (and what the tokens were granted) to the scopes the next authorization asks for; while that is wider than the tokens, a login does not use them. */
  async requireScope(scope: string): Promise<void> {
    await this.save({ requiredScope: scopeUnion(this.record.requiredScope, this.record.tokens?.scope, scope) });
  }

  /** Stores a dynamic registration (or the client metadata URL used as client_id). */
  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    if (this.server.oauth?.clientId) return;
    await this.save({ client: info });
  }

  /** Stored tokens; none while a login must widen their scopes (so the server asks for an authorization, not a refresh). */
  tokens(): OAuthTokens | undefined {
    if (this.interactive && pendingScope(this.record)) return undefined;
    return this.record.tokens;
  }

  /**
   * Stores tokens (0600, atomically); tokens from a login settle a pending wider scope (the server granted what it
   * granted), and a login that cannot be stored fails. Refreshed tokens that cannot be stored (a full or read-only
   * `$KEEL_HOME`) are used by this process all the same, with a warning through `notice` that names the file, why,
   * and, when the server replaced the refresh token, that a later process will need a login.
   */
  async saveTokens(tokens: OAuthTokens): Promise<void> {
    if (this.interactive) return this.save({ tokens, requiredScope: undefined });
    const rotated = tokens.refresh_token !== undefined && tokens.refresh_token !== this.record.tokens?.refresh_token;
    try {
      await this.save({ tokens });
    } catch (error) {
      this.record = { ...this.record, tokens };
      this.notice?.(`keel: warning: ${unsavedRefresh(this.server.name, errorMessage(error), rotated)}`);
    }
  }

  /**
   * Interactive: adds the scopes a tool asked for earlier (`requiredScope`) and `offline_access`
   * when the authorization server offers it, then opens the URL. Otherwise: LoginRequiredError.
   */
  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.interactive) throw this.loginRequired();
    const offered = this.record.discovery?.authorizationServerMetadata?.scopes_supported ?? [];
    const offline = offered.includes("offline_access") ? "offline_access" : undefined;
    const scope = scopeUnion(url.searchParams.get("scope") ?? undefined, this.record.requiredScope, offline);
    if (scope) url.searchParams.set("scope", scope);
    await this.interactive.openUrl(url);
  }

  /** Keeps the PKCE verifier in memory (it lives only as long as this login). */
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  /** The PKCE verifier of this login. */
  codeVerifier(): string {
    if (!this.verifier) throw new Error("no PKCE code verifier: the login did not start in this process");
    return this.verifier;
  }

  /** Forgets what the server rejected. */
  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "verifier" || scope === "all") this.verifier = undefined;
    const drop: (keyof OAuthRecord)[] =
      scope === "all" ? ["tokens", "client", "discovery"] : scope === "verifier" ? [] : [scope === "client" ? "client" : scope];
    if (!drop.length) return;
    this.record = await this.store.update(this.server.url!, (cur) => {
      const next = { ...cur };
      for (const k of drop) delete next[k];
      return next;
    });
  }

  /** Caches discovery (authorization server and its metadata) with the tokens, once checkAuthorizationServer accepts it (a configured secret goes to its bound issuer only). */
  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    checkAuthorizationServer(this.server, state);
    await this.save({ discovery: state });
  }

  /**
   * The cached discovery result, checked like a fresh one (it may predate `oauth.issuer`): one the binding no longer
   * allows is not used — the SDK then discovers afresh, and what the server names now is checked when it is saved (an
   * error naming the cached, stale authorization server would tell the user to change a setting that is right).
   * Non-interactive without a refresh token: LoginRequiredError before any discovery request (nothing to gain from it).
   */
  discoveryState(): OAuthDiscoveryState | undefined {
    if (!this.interactive && !this.record.tokens?.refresh_token) throw this.loginRequired();
    const cached = this.record.discovery;
    if (!cached?.authorizationServerUrl) return cached;
    try {
      checkAuthorizationServer(this.server, cached);
      return cached;
    } catch (error) {
      if (error instanceof IssuerBindingError) return undefined;
      throw error;
    }
  }

  private async save(patch: Partial<OAuthRecord>): Promise<void> {
    this.record = await this.store.update(this.server.url!, (cur) => ({ ...cur, ...patch }));
  }

  private loginRequired(): LoginRequiredError {
    return new LoginRequiredError(`MCP server "${this.server.name}" needs a login: run \`keel mcp login ${this.server.name}\`.`);
  }
}

/** What a refresh whose tokens could not be stored (`why`) means for server `name`. */
function unsavedRefresh(name: string, why: string, rotated: boolean): string {
  const then = rotated
    ? `the server replaced its refresh token and the file keeps the old, spent one, so once that is fixed a later keel process needs \`${loginCommand(name)}\``
    : "the file's refresh token still holds, so a later keel process refreshes again";
  return `${why.replace(/\.?$/, ".")} MCP server "${name}" keeps working until this keel process ends; ${then}.`;
}

/** The command that logs in to a server. */
export function loginCommand(name: string): string {
  return `keel mcp login ${/^[\w.-]+$/.test(name) ? name : JSON.stringify(name)}`;
}

/**
 * True when `error` (or its cause) means the server wants a login: LoginRequiredError, the SDK's
 * UnauthorizedError, or a 401 after authorization. Never throws.
 */
export function needsLogin(error: unknown): boolean {
  for (
    let e = error as { name?: string; code?: number; cause?: unknown; constructor?: { name?: string } } | undefined, i = 0;
    e && i < 5;
    e = e.cause as typeof e, i++
  ) {
    if (e.name === "LoginRequiredError" || e.constructor?.name === "UnauthorizedError") return true;
    if (e.constructor?.name === "StreamableHTTPError" && e.code === 401) return true;
  }
  return false;
}
