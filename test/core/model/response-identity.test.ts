import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorBodies } from "../../../core/model/error-bodies.js";
import { idleTimeoutFetch } from "../../../core/model/idle-timeout-fetch.js";
import { limitedBody } from "../../../core/model/response-size.js";
import { startOpenAIServer, type OpenAIServer } from "../../helpers/openai-server.js";

let server: OpenAIServer;
beforeAll(async () => {
  server = await startOpenAIServer();
});
afterAll(() => server.close());

/** keel's fetch stack for the `openai` client, as `openaiModel` builds it: error bodies over the size limit over the idle limit. */
const keelFetch = () =>
  new ErrorBodies(
    (res) => limitedBody(res, 1 << 20, () => new Error("too big")),
    idleTimeoutFetch(60_000, () => new Error("stalled")),
  ).fetch;

describe("the Response keel's fetch hands the openai client (real client, local server that redirects)", () => {
  it("keeps url, redirected and type of the response the request ended at, streamed or not", async () => {
    const moved = server.baseUrl.replace(/\/v1$/, "/moved/v1");
    const client = new OpenAI({ apiKey: "k", baseURL: moved, maxRetries: 0, fetch: keelFetch() });
    const plain = await fetch(`${moved}/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages: [] }) });
    await plain.text();
    server.push({ text: "whole" }, { text: "streamed" });
    const whole = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] }).withResponse();
    const streamed = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }], stream: true }).withResponse();
    let text = "";
    for await (const chunk of streamed.data) text += chunk.choices[0]?.delta.content ?? "";
    expect(whole.data.choices[0]?.message.content).toBe("whole");
    expect(text).toBe("streamed");
    for (const res of [whole.response, streamed.response]) {
      // Old code: a rebuilt Response, with url "", redirected false and type "default".
      expect(res.url).toBe(`${server.baseUrl}/chat/completions`);
      expect(res.redirected).toBe(true);
      expect(res.type).toBe(plain.type);
      expect(res.status).toBe(200);
    }
  });
});
