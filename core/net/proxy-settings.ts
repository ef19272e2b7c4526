import { BlockList, isIP } from "node:net";

/** The proxy settings of one environment: each proxy a full URL (credentials included: a secret), NO_PROXY as written. */
export interface ProxySettings {
  /** For `http:` URLs: `http_proxy`, else `HTTP_PROXY`. */
  http?: string;
  /** For `https:` URLs: `https_proxy`, else `HTTPS_PROXY`, else the `http` proxy. */
  https?: string;
  /** `no_proxy`, else `NO_PROXY` ("" when neither is set). */
  noProxy: string;
}

const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443 };

/**
 * The proxy variables of `env` (the lower-case name wins, as in curl and undici; an empty value is unset). A proxy
 * written without a scheme (`proxy:3128`) is `http://`, as curl reads it. Never throws.
 */
export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings {
  const read = (name: string) => (env[name.toLowerCase()] || env[name.toUpperCase()] || "").trim() || undefined;
  const http = withScheme(read("http_proxy"));
  const https = withScheme(read("https_proxy")) ?? http;
  return { http, https, noProxy: read("no_proxy") ?? "" };
}

/** True when `settings` name any proxy. */
export function hasProxy(settings: ProxySettings): boolean {
  return Boolean(settings.http || settings.https);
}

/**
 * The proxy a request to `url` goes through under `settings`, or undefined for a direct connection (no proxy for its
 * scheme, or NO_PROXY lists its host). NO_PROXY, as curl reads it: entries separated by commas or blanks; `*` alone
 * exempts every host; a name matches itself and its subdomains (`example.com`, `.example.com` and `*.example.com` all
 * match `api.example.com` and `example.com`); `host:port` only that port; IP addresses (IPv6 with or without
 * brackets) match an IP host exactly, or as a CIDR range (`10.0.0.0/8`). Loopback hosts (`localhost`, `127.0.0.1`)
 * are not special: as in curl, they go through the proxy unless NO_PROXY lists them. Never throws.
 */
export function proxyFor(url: string | URL, settings: ProxySettings): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const proxy = u.protocol === "https:" ? settings.https : u.protocol === "http:" ? settings.http : undefined;
  if (!proxy) return undefined;
  const host = u.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  const port = Number(u.port) || DEFAULT_PORTS[u.protocol] || 0;
  return exempted(host, port, settings.noProxy) ? undefined : proxy;
}

/** A proxy URL as keel prints it: scheme, host and port, its credentials (if any) as `***`; never the path or query. */
export function proxyForDisplay(proxy: string): string {
  try {
    const u = new URL(proxy);
    return `${u.protocol}//${u.username || u.password ? "***@" : ""}${u.host}`;
  } catch {
    return "(a proxy URL keel cannot read)";
  }
}

function withScheme(value: string | undefined): string | undefined {
  if (!value) return undefined;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
}

function exempted(host: string, port: number, noProxy: string): boolean {
  const entries = noProxy.split(/[\s,]+/).filter(Boolean);
  if (entries.length === 1 && entries[0] === "*") return true;
  const ipType = isIP(host);
  for (const raw of entries) {
    const entry = splitPort(raw.toLowerCase());
    if (entry.port && entry.port !== port) continue;
    if (ipType) {
      if (ipMatches(host, ipType, entry.name)) return true;
      continue;
    }
    const name = entry.name.replace(/^\*?\./, "").replace(/\.$/, "");
    if (name && !isIP(name) && (host === name || host.endsWith(`.${name}`))) return true;
  }
  return false;
}

/** An entry's host and port: `host:port`, `[v6]:port`, `[v6]`, a bare IPv6 address (never a port: `::1` is not `:` on port 1). */
function splitPort(entry: string): { name: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { name: bracketed[1]!, port: Number(bracketed[2] ?? 0) };
  const withPort = /^([^:]+):(\d+)$/.exec(entry);
  if (withPort) return { name: withPort[1]!, port: Number(withPort[2]) };
  return { name: entry, port: 0 };
}

function ipMatches(host: string, ipType: number, entry: string): boolean {
  const [address = "", bits] = entry.split("/");
  const entryType = isIP(address);
  if (entryType !== ipType) return false;
  const family = ipType === 4 ? "ipv4" : "ipv6";
  const max = ipType === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : /^\d+$/.test(bits) ? Number(bits) : -1;
  if (prefix < 0 || prefix > max) return false;
  const list = new BlockList();
  list.addSubnet(address, prefix, family);
  return list.check(host, family);
}
