import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CONFORMANCE = join(ROOT, "node_modules/.bin/conformance");
const ADAPTER = fileURLToPath(new URL("./fixtures/conformance-client.mjs", import.meta.url));
/** Every non-auth client scenario of @modelcontextprotocol/conformance@0.1.13, run one at a time. */
const SCENARIOS = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"];

describe("MCP conformance (client scenarios, keel's runtime as the client)", () => {
  const out = mkdtempSync(join(tmpdir(), "keel-conformance-results-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("the scenario list still holds exactly these non-auth client scenarios", async () => {
    const r = await execa(CONFORMANCE, ["list"], { reject: false });
    const client = `${r.stdout}\n${r.stderr}`.split("Client scenarios")[1] ?? "";
    const names = [...client.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!).filter((n) => !n.startsWith("auth/"));
    expect(names.sort()).toEqual([...SCENARIOS].sort());
  });

  for (const scenario of SCENARIOS) {
    it(`passes ${scenario}`, async () => {
      const r = await execa(CONFORMANCE, ["client", "--command", `${process.execPath} ${ADAPTER}`, "--scenario", scenario, "--timeout", "60000", "-o", out], {
        reject: false,
        cwd: ROOT,
        timeout: 100_000,
      });
      const text = `${r.stdout}\n${r.stderr}`;
      expect(text, text).toMatch(/OVERALL: PASSED/);
      expect(r.exitCode).toBe(0);
      const dir = readdirSync(out)
        .filter((d) => d.startsWith(scenario.replace(/\//g, "-")))
        .sort()
        .at(-1)!;
      const checks = JSON.parse(readFileSync(join(out, dir, "checks.json"), "utf8")) as { status: string }[];
      expect(checks.filter((c) => c.status === "FAILURE")).toEqual([]);
      expect(checks.some((c) => c.status === "SUCCESS")).toBe(true);
    });
  }
});
