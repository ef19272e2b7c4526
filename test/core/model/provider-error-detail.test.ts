import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelError } from "../../../core/model/model-error.js";
import { openaiModel } from "../../../core/model/openai-model.js";
import { openAISpec } from "../../helpers/model-spec.js";
import { startOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";

let server: OpenAIServer;
const env = { KEEL_TEST_KEY: "sk-test" };
const request = { messages: [{ role: "user" as const, content: "x" }], tools: [], callIndex: 0 };
const fail = (stream: boolean) =>
  openaiModel(openAISpec(server.baseUrl, { stream }), env)
    .complete(request)
    .then(
      () => expect.unreachable("the call succeeded"),
      (e: unknown) => {
        expect(e).toBeInstanceOf(ModelError);
        return (e as ModelError).message;
      },
    );

beforeAll(async () => {
  server = await startOpenAIServer();
});
afterAll(() => server.close());

describe("what a provider's error body shows in keel's message", () => {
  it("a gateway's HTML error page is named with its size, not quoted", async () => {
    const page = `<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body>${"<p>upstream said MARKUP-NOT-SHOWN</p>".repeat(60)}</body></html>`;
    for (const stream of [true, false]) {
      server.push({ rawBody: { status: 502, contentType: "text/html", body: page } });
      const message = await fail(stream);
      // Old code: the whole page (up to 4 KiB of markup) went into the message, the terminal line and the event.
      expect(message).toContain(`(502: an HTML page of ${Buffer.byteLength(page)} bytes)`);
      expect(message).not.toContain("MARKUP-NOT-SHOWN");
    }
  });

  it("a long message is cut at 300 characters; a short one is kept whole", async () => {
    const long = `${"the request was refused because ".repeat(20)}TAIL-NOT-SHOWN`;
    server.push({ status: 400, errorMessage: long });
    const message = await fail(false);
    expect(message).toContain(`(400: ${long.slice(0, 300)}…)`);
    expect(message).not.toContain("TAIL-NOT-SHOWN");
    server.push({ status: 400, errorMessage: "context length exceeded" });
    expect(await fail(false)).toContain("(400: context length exceeded)");
  });

  it("a key the provider echoes where the message is cut shows none of it (redacted before the cut)", async () => {
    const key = "sk-live-Zq9vX2mP7rL4kW8sHt3u";
    // The key starts 10 characters before the 300th: cut first, its first 10 characters would be left unredacted.
    const echoed = `${"x".repeat(290)}${key} was refused`;
    for (const stream of [true, false]) {
      server.push({ status: 401, errorMessage: echoed });
      const message = await openaiModel(openAISpec(server.baseUrl, { stream }), { KEEL_TEST_KEY: key })
        .complete(request)
        .then(
          () => expect.unreachable("the call succeeded"),
          (e: unknown) => (e as Error).message,
        );
      expect(message).toContain(`(401: ${"x".repeat(290)}***`);
      expect(message).not.toContain(key.slice(0, 8));
    }
  });
});
