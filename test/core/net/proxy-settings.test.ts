import { describe, expect, it } from "vitest";
import { proxyFor, proxyForDisplay, proxySettings } from "../../../core/net/proxy-settings.js";

const P = "http://proxy.corp:3128";
const via = (url: string, noProxy = "", env: NodeJS.ProcessEnv = {}) =>
  proxyFor(url, proxySettings({ HTTPS_PROXY: P, HTTP_PROXY: P, NO_PROXY: noProxy, ...env }));

describe("proxySettings and proxyFor (curl's NO_PROXY semantics)", () => {
  it("reads either case, the lower-case name first; an empty value is unset; https falls back to the http proxy; no scheme is http://", () => {
    expect(proxySettings({ https_proxy: "http://a:1", HTTPS_PROXY: "http://b:1" }).https).toBe("http://a:1");
    expect(proxySettings({ https_proxy: "", HTTPS_PROXY: "http://b:1" }).https).toBe("http://b:1");
    expect(proxySettings({ HTTP_PROXY: "proxy:3128" })).toEqual({ http: "http://proxy:3128", https: "http://proxy:3128", noProxy: "" });
    expect(proxySettings({ no_proxy: "a", NO_PROXY: "b" }).noProxy).toBe("a");
    expect(proxyFor("https://api.openai.com/v1", proxySettings({}))).toBeUndefined();
    expect(proxyFor("http://example.com", proxySettings({ HTTPS_PROXY: P }))).toBeUndefined();
  });

  it("host names match themselves and their subdomains, with or without a leading dot or *.; never a longer name", () => {
    for (const entry of ["example.com", ".example.com", "*.example.com", "EXAMPLE.com."]) {
      expect(via("https://api.example.com/v1", entry)).toBeUndefined();
      expect(via("https://example.com/v1", entry)).toBeUndefined();
      expect(via("https://notexample.com/v1", entry)).toBe(P);
      expect(via("https://example.com.evil.net/v1", entry)).toBe(P);
    }
  });

  it("* alone exempts everything; a list is split at commas and blanks; ports must match when given (default ports count)", () => {
    expect(via("https://anything.net", "*")).toBeUndefined();
    expect(via("https://b.net", "a.net, b.net")).toBeUndefined();
    expect(via("https://b.net", "a.net b.net")).toBeUndefined();
    expect(via("https://b.net", "b.net:443")).toBeUndefined();
    expect(via("http://b.net", "b.net:443")).toBe(P);
    expect(via("http://b.net:8080", "b.net:8080")).toBeUndefined();
  });

  it("IP addresses match IP hosts exactly or by CIDR, IPv6 with or without brackets; loopback is not special (as in curl)", () => {
    expect(via("http://127.0.0.1:8080/v1")).toBe(P);
    expect(via("http://localhost:8080/v1")).toBe(P);
    expect(via("http://127.0.0.1:8080/v1", "127.0.0.1")).toBeUndefined();
    expect(via("http://127.0.0.2/v1", "127.0.0.1")).toBe(P);
    expect(via("http://10.1.2.3/v1", "10.0.0.0/8")).toBeUndefined();
    expect(via("http://11.1.2.3/v1", "10.0.0.0/8")).toBe(P);
    expect(via("http://[::1]:8080/v1", "::1")).toBeUndefined();
    expect(via("http://[::1]:8080/v1", "[::1]:8080")).toBeUndefined();
    expect(via("http://[fd00::5]/v1", "fd00::/8")).toBeUndefined();
    expect(via("http://10.1.2.3/v1", "10.0.0.0/99")).toBe(P);
    // An address entry never matches a name, nor a name entry an address.
    expect(via("http://localhost/v1", "127.0.0.1")).toBe(P);
  });

  it("shows a proxy without its credentials, path or query", () => {
    expect(proxyForDisplay("http://user:s3cret@proxy.corp:3128/x?token=t")).toBe("http://***@proxy.corp:3128");
    expect(proxyForDisplay("http://proxy.corp:3128")).toBe("http://proxy.corp:3128");
    expect(proxyForDisplay("::")).not.toContain("::");
  });
});
