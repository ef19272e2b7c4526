import { describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { SchemaValidator } from "../../../core/validation.js";
import { sdkSchemaValidator } from "../../../runtimes/mcp/sdk-schema-validator.js";

describe("the SDK client's schema validator is keel's", () => {
  it("validates with 2020-12 by default and lets an uncompilable schema pass", () => {
    const fake = { validator: new SchemaValidator() } as unknown as Host;
    const v = sdkSchemaValidator(fake);
    const tuple = v.getValidator({ type: "array", prefixItems: [{ type: "string" }], items: false } as never);
    expect(tuple(["a"]).valid).toBe(true);
    expect(tuple(["a", "b"])).toMatchObject({ valid: false, errorMessage: expect.stringMatching(/must NOT have more than 1 items/) });
    expect(v.getValidator({ type: "bogus" } as never)(42).valid).toBe(true);
  });
});
