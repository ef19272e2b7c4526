import { describe, expect, it } from "vitest";
import { redactInstructions, redactToolInfos } from "../../../runtimes/mcp/redact-listing.js";

describe("what a server says about itself, redacted for the model", () => {
  // A server config substituting ${LOG_LEVEL}, ${PORT}, ${APP_ENV}, ${AWS_REGION} and ${API_TOKEN}: all count as its secrets.
  const secrets = ["info", "3000", "production", "us-east-1", "tok-9f8e7d6c5b4a", "correct-horse-battery"];

  it("hides credentials but leaves plain words and numbers (`info`, `3000`, `production`) readable", () => {
    const [tool] = redactToolInfos(
      [
        {
          name: "deploy",
          description: "Deploys to production, logs at info, listens on 3000 in us-east-1 with tok-9f8e7d6c5b4a",
          inputSchema: { type: "object", properties: { level: { type: "string", description: "log level, e.g. info", default: "info" } } },
        },
      ],
      secrets,
    );
    expect(tool!.description).toBe("Deploys to production, logs at info, listens on 3000 in *** with ***");
    expect(tool!.inputSchema).toEqual({ type: "object", properties: { level: { type: "string", description: "log level, e.g. info", default: "info" } } });
    expect(redactInstructions("Use tok-9f8e7d6c5b4a or correct-horse-battery for info", secrets)).toBe("Use *** or *** for info");
  });
});
