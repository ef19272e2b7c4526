import type { Fetch } from "./idle-timeout-fetch.js";

/** Most characters of a failed response's body kept for its error message. */
const MAX_BODY = 4096;

/**
 * The bodies of failed model responses, for error messages the `openai` SDK cannot give: it reads
 * only OpenAI's `{"error": {"message": …}}` and says "400 status code (no body)" for anything else,
 * such as Mistral's `{"object": "error", "message": …}` or Gemini's `[{"error": …}]`. `fetch` (given
 * to the SDK's client) keeps each failed response's body by its headers object, which the SDK's
 * APIError holds; `messageOf` finds it again. One per model client.
 */
export class ErrorBodies {
  private readonly bodies = new WeakMap<object, string>();

  /** `limit` bounds what is read of each response's body (see `limitedBody`); `inner` makes the requests (default: the global `fetch`). */
  constructor(
    private readonly limit: (res: Response) => Response = (res) => res,
    private readonly inner: Fetch = fetch,
  ) {}

  /** `fetch` that also keeps the start of a failed response's body (read from a clone; the SDK reads the original). */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = this.limit(await this.inner(input, init));
    if (!res.ok) {
      try {
        this.bodies.set(res.headers, (await res.clone().text()).slice(0, MAX_BODY));
      } catch {
        // no body to keep: the SDK's own message stands
      }
    }
    return res;
  };

  /** True unless the failed response behind an SDK error was kept and is not JSON (a proxy's or gateway's page, text, nothing). Never throws. */
  jsonBody(error: unknown): boolean {
    const headers = (error as { headers?: unknown } | null)?.headers;
    const text = headers !== null && typeof headers === "object" ? this.bodies.get(headers) : undefined;
    // Only its start was kept (a long body is cut): JSON by its first character.
    return text === undefined || /^\s*[[{]/.test(text);
  }

  /** The message of the failed response behind an SDK error (or its body text), or undefined when none was kept. Never throws. */
  messageOf(error: unknown): string | undefined {
    const headers = (error as { headers?: unknown } | null)?.headers;
    if (headers === null || typeof headers !== "object") return undefined;
    const text = this.bodies.get(headers);
    return text === undefined ? undefined : bodyMessage(text);
  }
}

/** The message a provider's error body carries, in the shapes providers use; else the body text; undefined when empty. */
function bodyMessage(text: string): string | undefined {
  try {
    const json = JSON.parse(text) as unknown;
    const o = (Array.isArray(json) ? json[0] : json) as { error?: unknown; message?: unknown; detail?: unknown } | null;
    const inner = o?.error as { message?: unknown } | string | undefined;
    for (const candidate of [typeof inner === "object" ? inner?.message : inner, o?.message, o?.detail])
      if (typeof candidate === "string" && candidate !== "") return candidate;
  } catch {
    // not JSON: the text itself
  }
  return text.trim() || undefined;
}
