import { proxyForDisplay } from "../net/proxy-settings.js";
import { ModelError } from "./model-error.js";

/** What keel knows of a failed model call that went through a proxy. */
export interface ProxiedFailure {
  /** The proxy the endpoint is reached through (credentials and all: only shown through proxyForDisplay). */
  proxy: string;
  /** The endpoint as keel shows it (no credentials). */
  where: string;
  /** The endpoint's scheme: an `http:` request goes to the proxy as is, an `https:` one through a CONNECT tunnel. */
  tunnelled: boolean;
  /** The HTTP status of the response keel got, when it got one. */
  status?: number;
  /** The response's body was JSON (a provider's error; a proxy's own page is HTML, text or empty). */
  jsonBody: boolean;
  /** The innermost message of a connection error (undici's `Proxy response (403) !== 200 when HTTP Tunneling`). */
  connectionError?: string;
}

/**
 * The proxy's own refusal of a model call, said as the proxy's, or undefined when the failure is not one. A proxy
 * refuses a CONNECT tunnel (`https:` endpoints) with a status line undici reports as `Proxy response (N) !== 200 when
 * HTTP Tunneling`; it answers a plain-HTTP request itself with 407, or with 403 (its access rules: squid's
 * `ERR_ACCESS_DENIED`), 502, 503 or 504 (it could not reach the endpoint) and a page of its own, not JSON. Inside a
 * tunnel every answer is the endpoint's, and a JSON error body is the provider's. 502, 503 and 504 are transient. The
 * message names the proxy without its credentials, and says what to do.
 */
export function proxyRefusal(f: ProxiedFailure): ModelError | undefined {
  const tunnelStatus = /Proxy response \((\d{3})\) !== 200/.exec(f.connectionError ?? "")?.[1];
  const status = tunnelStatus ? Number(tunnelStatus) : !f.tunnelled && !f.jsonBody ? f.status : undefined;
  if (status === undefined || ![403, 407, 502, 503, 504].includes(status)) return undefined;
  const proxy = proxyForDisplay(f.proxy);
  const what = tunnelStatus
    ? `refused to open a tunnel to ${f.where} (${status})`
    : `answered ${status} to the model call to ${f.where} with a page of its own`;
  const next =
    status === 407
      ? "It wants credentials it did not get: put the right user and password in the proxy URL (HTTPS_PROXY/HTTP_PROXY, `http://user:pass@proxy:port`, percent-encoded)."
      : status === 403
        ? "Its access rules do not allow this host (or port): ask whoever runs the proxy to allow it, or list the host in NO_PROXY if it is reached without the proxy."
        : "It could not get an answer from the endpoint: check the host in model.baseUrl, and that the proxy can reach it (or list the host in NO_PROXY if it is reached without the proxy); asking again later may help.";
  return new ModelError(`The proxy ${proxy} ${what}, not the provider. ${next}`, status >= 500);
}
