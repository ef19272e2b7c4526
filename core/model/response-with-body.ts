/**
 * `res` with `body` in place of its own: status, status text and headers as they were, and its
 * `url`, `redirected` and `type` too (a `new Response` has `""`, `false` and `"default"`: the URL a
 * redirect ended at would be lost to whoever reads the response, such as the `openai` client's logs).
 */
export function responseWithBody(res: Response, body: ReadableStream<Uint8Array>): Response {
  const wrapped = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  Object.defineProperties(wrapped, {
    url: { value: res.url, enumerable: true },
    redirected: { value: res.redirected, enumerable: true },
    type: { value: res.type, enumerable: true },
  });
  return wrapped;
}
