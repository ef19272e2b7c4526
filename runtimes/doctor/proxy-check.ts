import { hasProxy, proxyForDisplay, proxySettings, usableProxy } from "../../core/index.js";
import { check, type DoctorCheck } from "./doctor-check.js";

/** Longest NO_PROXY the check repeats (it comes from the environment, but a line stays a line). */
const MAX_SHOWN_NO_PROXY = 200;

/**
 * Which proxy keel's requests use, from the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, either case), each
 * proxy shown without its credentials (`http://***@proxy:3128`); `skip` when none is set. Never throws.
 */
export function proxyCheck(env: NodeJS.ProcessEnv): DoctorCheck {
  const s = proxySettings(env);
  if (!hasProxy(s)) return check("proxy", "skip", "no proxy set (HTTPS_PROXY, HTTP_PROXY): keel connects directly");
  const parts = [
    s.https ? `https:// through ${proxyForDisplay(s.https)}` : "https:// direct",
    s.http ? `http:// through ${proxyForDisplay(s.http)}` : "http:// direct",
  ];
  const unusable = [s.https, s.http].find((p) => p && !usableProxy(p));
  if (unusable)
    return check(
      "proxy",
      "fail",
      `the proxy ${proxyForDisplay(unusable)} is not an http:// or https:// URL keel can read, the only kind of proxy keel can use: every request through it fails`,
      "set HTTPS_PROXY/HTTP_PROXY to the http:// URL of your proxy (ask your IT for it), or unset them",
    );
  const noProxy = s.noProxy.length > MAX_SHOWN_NO_PROXY ? `${s.noProxy.slice(0, MAX_SHOWN_NO_PROXY)}…` : s.noProxy;
  return check(
    "proxy",
    "ok",
    `${parts.join(", ")}; ${noProxy ? `NO_PROXY ${noProxy}` : "NO_PROXY not set (every host, loopback too, goes through the proxy)"}`,
  );
}
