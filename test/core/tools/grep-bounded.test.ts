import { describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

describe("grep cannot hang", () => {
  it("a catastrophic pattern on a long line finishes (RE2, linear time): ^(a+)+$ on a…a!", async () => {
    // With a backtracking engine this call would not finish in any useful time (2^50000 paths).
    ws = makeWorkspace({ "a.txt": "a".repeat(50_000) + "!\n", "b.txt": "aaaa\n" });
    host = await openTestHost(ws);
    const obs = await host.runTool({ tool: "grep", input: { pattern: "^(a+)+$" } });
    expect(obs).toMatchObject({ ok: true });
    expect(obs.content).toBe("b.txt:1: aaaa");
  });

  it("matches as before for ordinary patterns, case-insensitively when asked", async () => {
    ws = makeWorkspace({ "src/x.ts": "const Foo = 1;\nexport { Foo };\n" });
    host = await openTestHost(ws);
    const obs = await host.runTool({ tool: "grep", input: { pattern: "foo\\b", ignore_case: true } });
    expect(obs.content).toBe("src/x.ts:1: const Foo = 1;\nsrc/x.ts:2: export { Foo };");
  });

  it("refuses lookaround and backreferences with a message that says why and what to do", async () => {
    ws = makeWorkspace({ "a.txt": "aa\n" });
    host = await openTestHost(ws);
    for (const pattern of ["(?=a)a", "(a)\\1"]) {
      const obs = await host.runTool({ tool: "grep", input: { pattern } });
      expect(obs).toMatchObject({ ok: false, code: "execution_failed" });
      expect(obs.content).toMatch(/RE2 syntax.*linear time.*Rewrite the pattern/);
    }
    const bad = await host.runTool({ tool: "grep", input: { pattern: "(unclosed" } });
    expect(bad.content).toMatch(/not a valid regular expression/);
  });
});
