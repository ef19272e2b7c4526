import { hasProxy, proxyFor, proxyForDisplay, proxySettings, type ProxySettings } from "./proxy-settings.js";

/** The `fetch` signature keel hands the `openai` client, the MCP SDK's transports and its own requests. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A host's `fetch`, with what it holds open (a proxy's connections) to release when the host closes. */
export type ClosableFetch = Fetch & {
  /**
   * Closes the connections this fetch made through a proxy (and direct ones beside them): idle ones at once, one still
   * in use after a short grace (the host's work is over by then). Requests made after it fail. Never rejects.
   */
  close(): Promise<void>;
};

/** How long `close` lets a request still under way finish before its connection is destroyed. */
const CLOSE_GRACE_MS = 1000;

/** A proxy setting keel cannot use (not an `http://` or `https://` URL). Thrown by the first request that would go through it. */
export class ProxySettingError extends Error {
  override name = "ProxySettingError";
}

/**
 * The one `fetch` of a host, honouring `env`'s proxy variables (`proxySettings`: HTTPS_PROXY, HTTP_PROXY, NO_PROXY,
 * either case). With none set it is the global `fetch`, unchanged. With one set, every request goes through undici's
 * `fetch` with one routing dispatcher, made on the first request and kept: each connection (each redirect hop too)
 * goes through undici's ProxyAgent for the proxy `proxyFor` names (a CONNECT tunnel for `https:`, an absolute-URI
 * request for `http:`, as curl does; `user:pass@` in the proxy URL becomes Proxy-Authorization), or straight to the host through an Agent.
 * TLS to the host verifies against Node's CA store, NODE_EXTRA_CA_CERTS included. A proxy that is not an http(s) URL
 * fails each request with ProxySettingError, which names the variable's value without its credentials.
 */
export function proxyFetch(env: NodeJS.ProcessEnv): ClosableFetch {
  const settings = proxySettings(env);
  if (!hasProxy(settings)) return Object.assign((input: string | URL | Request, init?: RequestInit) => fetch(input, init), { close: async () => {} });
  let routed: Promise<Routed> | undefined;
  const routedFetch: Fetch = async (input, init) => {
    routed ??= routing(settings);
    return (await routed).fetch(input, init);
  };
  return Object.assign(routedFetch, {
    close: async () => {
      const made = await routed?.catch(() => undefined);
      await made?.close();
    },
  });
}

/** The fetch that routes through the proxies, and the closing of its dispatchers. */
interface Routed {
  fetch: Fetch;
  close(): Promise<void>;
}

async function routing(settings: ProxySettings): Promise<Routed> {
  const undici = await import("undici");
  const direct = new undici.Agent();
  const agents = new Map<string, import("undici").Dispatcher>();
  const agentFor = (proxy: string) => {
    let agent = agents.get(proxy);
    if (!agent) {
      if (!usableProxy(proxy))
        throw new ProxySettingError(
          `The proxy ${proxyForDisplay(proxy)} (from HTTPS_PROXY/HTTP_PROXY) is not an http:// or https:// URL keel can read, the only kind of proxy keel can use; fix the variable, or list the host in NO_PROXY.`,
        );
      // `http:` targets as absolute-URI requests, as curl sends them: many proxies allow CONNECT to port 443 only.
      agent = new undici.ProxyAgent({ uri: proxy, proxyTunnel: false });
      agents.set(proxy, agent);
    }
    return agent;
  };
  // Chosen per connection, not per fetch call: a redirect to a host NO_PROXY lists goes direct, and back.
  const dispatcher = direct.compose((dispatch) => (opts, handler) => {
    const proxy = proxyFor(String(opts.origin), settings);
    return proxy ? agentFor(proxy).dispatch(opts, handler) : dispatch(opts, handler);
  });
  const routedFetch: Fetch = async (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const url = request ? request.url : input;
    // A proxy keel cannot use fails here, with what to do, not deep inside undici.
    const proxy = proxyFor(String(url), settings);
    if (proxy) agentFor(proxy);
    const own = request
      ? { method: request.method, headers: request.headers, body: request.body, redirect: request.redirect, signal: request.signal, duplex: "half" }
      : {};
    try {
      return (await undici.fetch(url as string, { ...own, ...init, dispatcher } as Parameters<typeof undici.fetch>[1])) as unknown as Response;
    } catch (error) {
      throw proxy ? throughProxy(error, proxy) : error;
    }
  };
  const close = async () => {
    const dispatchers = [direct, ...agents.values()];
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<"late">((done) => (timer = setTimeout(() => done("late"), CLOSE_GRACE_MS)));
    const closed = Promise.all(dispatchers.map((d) => d.close().catch(() => undefined)));
    if ((await Promise.race([closed, grace])) === "late") await Promise.all(dispatchers.map((d) => d.destroy().catch(() => undefined)));
    clearTimeout(timer);
  };
  return { fetch: routedFetch, close };
}

/**
 * fetch's bare `fetch failed` for a request through `proxy`, made to say why and through what: `fetch failed: Proxy
 * Authentication Required (407) (through the proxy http://***@proxy:3128)`, the proxy's URL and password `***` in it.
 * A TypeError with the same cause, as fetch's own; any other error (an abort) unchanged.
 */
function throughProxy(error: unknown, proxy: string): unknown {
  if (!(error instanceof TypeError) || !(error.cause instanceof Error)) return error;
  let root: Error = error.cause;
  for (let depth = 0; depth < 5 && root.cause instanceof Error; depth++) root = root.cause;
  const password = safeDecode(passwordOf(proxy));
  let why = root.message.split(proxy).join(proxyForDisplay(proxy));
  if (password.length >= 3) why = why.split(password).join("***");
  return new TypeError(`${error.message}: ${why} (through the proxy ${proxyForDisplay(proxy)})`, { cause: error.cause });
}

/** True for a proxy keel can use: an `http://` or `https://` URL that parses. */
export function usableProxy(proxy: string): boolean {
  if (!/^https?:\/\//i.test(proxy)) return false;
  try {
    return Boolean(new URL(proxy).host);
  } catch {
    return false;
  }
}

function passwordOf(proxy: string): string {
  try {
    return new URL(proxy).password;
  } catch {
    return "";
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
