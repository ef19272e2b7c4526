import { describe, expect, it } from "vitest";
import { endpointParts, modelsEndpoint } from "../../../core/model/endpoint-url.js";

describe("a model base URL split for fetch and the openai client", () => {
  it("keeps a plain URL as written, moves a query and user info out, and never throws on a malformed escape", () => {
    expect(endpointParts("http://127.0.0.1:8080/v1")).toEqual({ base: "http://127.0.0.1:8080/v1" });
    expect(endpointParts("https://r.openai.azure.com/openai/deployments/d?api-version=2024-10-21")).toEqual({
      base: "https://r.openai.azure.com/openai/deployments/d",
      query: { "api-version": "2024-10-21" },
    });
    expect(endpointParts("http://al%40ice:p%3Ass@proxy/v1")).toEqual({
      base: "http://proxy/v1",
      authorization: `Basic ${Buffer.from("al@ice:p:ss").toString("base64")}`,
    });
    expect(endpointParts("http://u:%zz@h/v1").authorization).toBe(`Basic ${Buffer.from("u:%zz").toString("base64")}`);
    expect(endpointParts("not a url")).toEqual({ base: "not a url" });
    expect(modelsEndpoint("http://u:p@h/v1/?api-version=1")).toEqual({
      url: "http://h/v1/models?api-version=1",
      authorization: `Basic ${Buffer.from("u:p").toString("base64")}`,
    });
  });
});
