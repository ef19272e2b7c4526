import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { conformanceWorkspace } from "./conformance-workspace.js";
import { type HttpServe, startHttp } from "./serve-test-kit.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CONFORMANCE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
/** 0.1.14+ imports `globSync` from `fs` (Node 22): on Node 20 it runs under this module hook (test/helpers). */
const FS_SHIM = join(ROOT, "test/helpers/fs-glob-shim.mjs");

/** Runs the conformance CLI with the fs shim. */
function conformance(args: string[], options: { timeout?: number } = {}) {
  return execa(process.execPath, ["--import", FS_SHIM, CONFORMANCE, ...args], { reject: false, cwd: ROOT, ...options });
}

/**
 * Server scenarios of @modelcontextprotocol/conformance@0.1.16 that apply to a server whose tools,
 * resources and prompts come from the workspace's own extensions (conformance-workspace.ts provides
 * the names the scenarios call, with ordinary plugin, MCP manifest, command and workflow files):
 */
const APPLICABLE = [
  "server-initialize",
  "ping",
  "tools-list",
  "tools-call-simple-text", // a plugin virtual tool
  "tools-call-error", // a plugin virtual tool a deny rule refuses: an isError result
  "tools-call-with-progress", // a plugin alias of an upstream MCP tool: progress passes through
  "json-schema-2020-12", // a virtual tool's 2020-12 parameters are served unchanged
  "resources-list",
  "resources-read-text", // a local manifest resource
  "prompts-list",
  "prompts-get-simple", // a prompt command (.claude/commands)
  "prompts-get-with-args", // a workflow with a prompt and parameters
  "dns-rebinding-protection",
  "server-sse-multiple-streams",
  "server-sse-polling", // passes; its two SHOULD warnings (priming event, retry field) need an event store keel does not keep
];

/**
 * The rest, and why they do not apply:
 * - logging-set-level, tools-call-with-logging: keel does not declare the logging capability (upstream
 *   servers' log messages are recorded as `mcp_log` events, not forwarded).
 * - completion-complete: keel declares no completions (no prompt or resource-template arguments to complete).
 * - tools-call-image, tools-call-audio, tools-call-embedded-resource, tools-call-mixed-content,
 *   resources-read-binary, prompts-get-embedded-resource, prompts-get-with-image: keel's results are
 *   observations (text; binary output is kept as artifacts on disk), and its resources and prompts are text.
 * - tools-call-sampling, tools-call-elicitation, elicitation-sep1034-defaults, elicitation-sep1330-enums:
 *   need a tool that itself asks the client for sampling or for a form; keel elicits only for approvals
 *   (tested with the SDK client in serve-stdio.test.ts).
 * - resources-templates-read, resources-subscribe, resources-unsubscribe: keel serves no resource
 *   templates and no subscriptions.
 */
const NOT_APPLICABLE = [
  "logging-set-level",
  "tools-call-with-logging",
  "completion-complete",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "resources-read-binary",
  "prompts-get-embedded-resource",
  "prompts-get-with-image",
  "tools-call-sampling",
  "tools-call-elicitation",
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
  "resources-templates-read",
  "resources-subscribe",
  "resources-unsubscribe",
];

describe("MCP conformance (server scenarios, keel mcp serve --http as the server)", () => {
  const out = mkdtempSync(join(tmpdir(), "keel-serve-conformance-"));
  let ws: TempWorkspace;
  let server: HttpServe;
  beforeAll(async () => {
    ws = conformanceWorkspace();
    server = await startHttp(ws, ["--no-auth"]);
  });
  afterAll(async () => {
    await server?.stop();
    ws?.cleanup();
    rmSync(out, { recursive: true, force: true });
  });

  it("every server scenario of the installed suite is either run here or listed with why it does not apply", async () => {
    const r = await conformance(["list", "--server"]);
    const names = [...r.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!);
    expect(names.sort()).toEqual([...APPLICABLE, ...NOT_APPLICABLE].sort());
  });

  for (const scenario of APPLICABLE) {
    it(`passes ${scenario}`, async () => {
      const r = await conformance(["server", "--url", server.url, "--scenario", scenario, "-o", out], { timeout: 100_000 });
      const text = `${r.stdout}\n${r.stderr}`;
      expect(r.exitCode, text).toBe(0);
      expect(text).toMatch(/, 0 failed/);
      const dir = readdirSync(out)
        .filter((d) => d.startsWith(`server-${scenario}-`))
        .sort()
        .at(-1)!;
      const checks = JSON.parse(readFileSync(join(out, dir, "checks.json"), "utf8")) as { status: string }[];
      expect(checks.filter((c) => c.status === "FAILURE")).toEqual([]);
      expect(checks.length).toBeGreaterThan(0);
      // server-sse-polling's checks are SHOULDs: warnings, no SUCCESS rows.
      if (scenario !== "server-sse-polling") expect(checks.some((c) => c.status === "SUCCESS")).toBe(true);
    });
  }
});
