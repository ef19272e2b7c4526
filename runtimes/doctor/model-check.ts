import { existsSync } from "node:fs";
import {
  envValue,
  errorMessage,
  hasProxy,
  type Host,
  MODEL_HELP,
  modelsEndpoint,
  proxyFor,
  proxyForDisplay,
  proxySettings,
  redirectTargetForDisplay,
  resolveModelSpec,
  urlForDisplay,
} from "../../core/index.js";
import { check, type DoctorCheck } from "./doctor-check.js";

/** How long the model endpoint may take to answer the doctor's one request. */
export const MODEL_CHECK_TIMEOUT_MS = 5_000;

/**
 * Checks the configured model with one cheap request (`GET <baseUrl>/models`, short timeout, the
 * key from the environment). Skipped, with how to configure one, when no model is configured; a
 * scripted model is checked for its file. Never throws.
 */
export async function modelCheck(host: Host, signal: AbortSignal): Promise<DoctorCheck> {
  let spec;
  try {
    spec = resolveModelSpec(host.config, undefined, host.env, host.workspace.root);
  } catch (error) {
    return check("model", "fail", errorMessage(error), "fix `model` in keel.config.json (keel config get model shows where it comes from)");
  }
  if (!spec)
    return check("model", "skip", "no model configured (keel run needs one)", MODEL_HELP.split("\n").slice(1, 4).join(";").replace(/\s+/g, " ").trim());
  if (spec.kind === "scripted")
    return existsSync(spec.file)
      ? check("model", "ok", `scripted model ${spec.file}`)
      : check("model", "fail", `scripted model file ${spec.file} does not exist`, "create the script file or fix `model` in the config");
  const base = (spec.baseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "");
  const key = envValue(host.env, spec.apiKeyEnv);
  if (!spec.baseUrl && !key)
    return check(
      "model",
      "fail",
      `${spec.name} on api.openai.com, but ${spec.apiKeyEnv} is not set`,
      `export ${spec.apiKeyEnv}=… or set model.baseUrl to a local OpenAI-compatible server`,
    );
  const cfg = typeof host.config.model === "object" && host.config.model ? (host.config.model as { headers?: Record<string, string> }) : {};
  const endpoint = modelsEndpoint(base);
  const headers: Record<string, string> = { accept: "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  // As the client sends them: a URL's user info as Basic authorization, then model.headers (they win).
  if (endpoint.authorization) headers.authorization = endpoint.authorization;
  for (const [name, value] of Object.entries(cfg.headers ?? {})) headers[name.toLowerCase()] = value;
  const url = endpoint.url;
  // What the check prints: a URL's credentials (`user:key@`, `?api_key=`) stay out of output people paste into bug reports.
  const shownBase = urlForDisplay(base);
  const shownUrl = urlForDisplay(url);
  // Through the host's fetch, as the model client goes: the environment's proxy, unless NO_PROXY lists the host.
  const proxy = proxyFor(url, proxySettings(host.env));
  const route = proxy ? ` through the proxy ${proxyForDisplay(proxy)}` : hasProxy(proxySettings(host.env)) ? " directly (NO_PROXY lists it)" : "";
  // A proxy answers for the endpoint too (403 for a blocked host, 502 when it cannot reach it).
  const proxyHint = proxy ? "; or the proxy answered instead of the endpoint: check HTTPS_PROXY/HTTP_PROXY and NO_PROXY" : "";
  const hidden = (text: string) => (proxy ? text.split(proxy).join(proxyForDisplay(proxy)) : text);
  try {
    // As the model client does: a redirect only within the origin, so the key and headers go nowhere else.
    const { fetchWithinOrigin } = await import("@modelcontextprotocol/sdk/shared/transport.js");
    const res = await fetchWithinOrigin(host.fetch)(url, { headers, signal: AbortSignal.any([signal, AbortSignal.timeout(MODEL_CHECK_TIMEOUT_MS)]) });
    await res.body?.cancel();
    if (res.status >= 300 && res.status < 400)
      return check(
        "model",
        "fail",
        `${shownUrl} redirected to ${redirectTargetForDisplay(res.headers.get("location"), url)} (HTTP ${res.status}), which keel does not follow: only redirects within the endpoint's origin are followed, so the key and model.headers never go elsewhere`,
        "if that address is the right endpoint, set model.baseUrl to it",
      );
    if (res.ok) return check("model", "ok", `${spec.name} at ${shownBase}${route} (GET /models answered ${res.status})`);
    if (res.status === 401 || res.status === 403)
      return check(
        "model",
        "fail",
        `${shownBase}${route} refused the key (HTTP ${res.status})`,
        `check ${spec.apiKeyEnv}${key ? "" : " (it is not set)"}${proxyHint}`,
      );
    if (res.status === 404)
      return check("model", "warn", `${shownBase} is reachable${route} but has no /models (HTTP 404)`, "check model.baseUrl: it usually ends in /v1");
    return check("model", "fail", `${shownUrl} answered HTTP ${res.status}${route}`, `check the server's logs and model.baseUrl${proxyHint}`);
  } catch (error) {
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? errorMessage(error);
    return check(
      "model",
      "fail",
      timedOut
        ? `${shownUrl} did not answer within ${MODEL_CHECK_TIMEOUT_MS / 1000} s${route}`
        : `cannot reach ${shownUrl}${route} (${hidden(detail.split(url).join(shownUrl))})`,
      proxy
        ? "check that the proxy is up and lets this host through (HTTPS_PROXY/HTTP_PROXY), or list the host in NO_PROXY if it is reached directly; then start the model server, or fix model.baseUrl / OPENAI_BASE_URL"
        : "start the model server, or fix model.baseUrl / OPENAI_BASE_URL",
    );
  }
}
