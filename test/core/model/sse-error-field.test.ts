import { describe, expect, it } from "vitest";
import { sseErrorFieldFetch } from "../../../core/model/sse-error-field.js";

// The byte boundaries of a real stream are up to TCP: here the body is cut at every position (no network: an inner fetch hands out a real Response).
const body =
  'data: {"choices":[{"delta":{"content":"é ✓"}}]}\n\nerror: {"code":500,"message":"slot ✗","type":"server_error"}\r\n\r\n: keep-alive\ndata: [DONE]\n\n';
const expected =
  'data: {"choices":[{"delta":{"content":"é ✓"}}]}\n\ndata: {"error":{"code":500,"message":"slot ✗","type":"server_error"}}\r\n\r\n: keep-alive\ndata: [DONE]\n\n';

async function through(chunks: Uint8Array[], contentType = "text/event-stream"): Promise<string> {
  const inner = async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const c of chunks) controller.enqueue(c);
          controller.close();
        },
      }),
      { headers: { "content-type": contentType } },
    );
  return (await sseErrorFieldFetch(inner)("http://127.0.0.1/v1/chat/completions")).text();
}

describe("sseErrorFieldFetch: llama.cpp's `error:` lines as data lines", () => {
  it("rewrites the error line and passes every other byte, wherever the chunks are cut", async () => {
    const bytes = new TextEncoder().encode(body);
    for (let cut = 0; cut <= bytes.length; cut++) expect(await through([bytes.slice(0, cut), bytes.slice(cut)])).toBe(expected);
    expect(await through([...bytes].map((b) => Uint8Array.of(b)))).toBe(expected);
  });

  it("an error value that is not JSON becomes its message; a last line without a line break is rewritten too", async () => {
    expect(await through([new TextEncoder().encode("error: model is loading")])).toBe('data: {"error":{"message":"model is loading"}}\n');
  });

  it("leaves bodies that are not event streams alone", async () => {
    expect(await through([new TextEncoder().encode("error: x\n")], "application/json")).toBe("error: x\n");
  });
});
