import { describe, expect, it } from "vitest";
import { childEnv } from "../../../runtimes/mcp/open-client.js";

describe("childEnv (a stdio server's environment)", () => {
  it("takes the safe names from the host's env, drops those it lacks, skips shell functions, then the manifest's env", () => {
    const env = childEnv(
      ["PATH", "HOME", "SHELL", "USER"],
      { PATH: "/host/bin", SHELL: "() { evil; }", USER: "host-user", SECRET: "x" },
      { USER: "manifest-user", EXTRA: "1" },
    );
    expect(env).toEqual({ PATH: "/host/bin", HOME: undefined, SHELL: undefined, USER: "manifest-user", EXTRA: "1" });
    // `undefined` entries override what the SDK would add from process.env; spawn drops them.
    expect(Object.keys(env)).not.toContain("SECRET");
  });
});
