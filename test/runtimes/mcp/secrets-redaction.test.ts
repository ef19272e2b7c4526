import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expandVars } from "../../../manifests/mcp/expand-vars.js";
import type { McpServerConfig } from "../../../manifests/mcp/mcp-server-config.js";
import { redactDeep, redactSecrets } from "../../../core/index.js";
import { StderrRing } from "../../../runtimes/mcp/stderr-ring.js";
import { configFingerprint, ToolCache } from "../../../runtimes/mcp/tool-cache.js";
import { filesContaining } from "../../helpers/files-containing.js";
import { runKeel, type CliRun } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";
import { freePort, mcpWorkspace, nodeServer } from "./mcp-test-kit.js";

const RECORDING = fileURLToPath(new URL("./fixtures/recording-server.mjs", import.meta.url));

describe("redactSecrets / redactDeep / StderrRing / configFingerprint / expandVars", () => {
  it("replaces secrets as written, URL-encoded and JSON-escaped, longest first; ignores very short ones", () => {
    const s = ["tok/en+1", "tok", "ab"];
    expect(redactSecrets("a tok/en+1 b tok%2Fen%2B1 c tok d ab", s)).toBe("a *** b *** c *** d ab");
    expect(redactSecrets(JSON.stringify({ v: 'x"q\\' }), ['x"q\\'])).toBe('{"v":"***"}');
    const spaced = "pa ss~word!(x)";
    expect(redactSecrets(`grant_type=client_credentials&client_secret=${new URLSearchParams({ spaced }).toString().slice(7)}&x=1`, [spaced])).toBe(
      "grant_type=client_credentials&client_secret=***&x=1",
    );
    expect(redactDeep({ n: 1, b: true, list: ["has tok/en+1"], nested: { "tok/en+1": "tok" } }, s)).toEqual({
      n: 1,
      b: true,
      list: ["has ***"],
      nested: { "***": "***" },
    });
  });

  it("a stderr ring hands out redacted lines and drops a line it may have cut", () => {
    const ring = new StderrRing((t) => redactSecrets(t, ["SECRET-VALUE"]), 40);
    ring.push("first line\nthe SECRET-VALUE leaks\n");
    expect(ring.tail()).toBe("first line\nthe *** leaks");
    const cut = new StderrRing((t) => redactSecrets(t, ["SECRET-VALUE"]), 20);
    cut.push("the SECRET-VALUE leaks\nlast line\n"); // kept: "…LUE leaks\nlast line\n", a fragment no redaction can recognise
    expect(cut.tail()).toBe("last line");
  });

  it("a secret of many lines (a private key) is *** in a stderr tail of fewer lines, and none of its lines shows when the ring cut inside it", () => {
    const key = ["-----BEGIN PRIVATE KEY-----", ...Array.from({ length: 26 }, (_, i) => `line${i}-${"k".repeat(56)}`), "-----END PRIVATE KEY-----"].join("\n");
    const ring = new StderrRing((t) => redactSecrets(t, [key]));
    ring.push(`starting with key:\n${key}\n`);
    expect(ring.tail()).toBe("starting with key:\n***");
    const cut = new StderrRing((t) => redactSecrets(t, [key]), 1000); // keeps the last 1000 characters: from inside line 11 on
    cut.push(`starting with key:\n${key}\nexiting\n`);
    expect(cut.tail(40)).not.toMatch(/k{20}/);
    // The END armour line is the same in every key: no secret on its own (the body lines are).
    expect(cut.tail(40)).toMatch(/^(\*\*\*\n)+-----END PRIVATE KEY-----\nexiting$/);
  });

  it("the tool-cache fingerprint is no function of a secret (a changed token keeps it; a changed manifest does not)", () => {
    const config = (token: string, args = ["server.js"]) =>
      ({ name: "s", transport: "stdio", command: "node", args, env: { TOKEN: token }, headers: {}, secrets: [token] }) as unknown as McpServerConfig;
    expect(configFingerprint(config("first-secret"))).toBe(configFingerprint(config("other-secret")));
    expect(configFingerprint(config("first-secret", ["other.js"]))).not.toBe(configFingerprint(config("first-secret")));
  });

  it("a cached tool list holding a server's secret (written before listings were redacted) comes out with ***", async () => {
    const config = { name: "s", transport: "stdio", command: "node", args: [], env: { TOKEN: "first-secret" }, headers: {}, secrets: ["first-secret"] };
    const server = config as unknown as McpServerConfig;
    const file = {
      servers: { s: { fingerprint: configFingerprint(server), savedAt: new Date().toISOString(), instructions: "Uses first-secret.", tools: [] as unknown[] } },
    };
    file.servers.s.tools.push({ name: "q", title: "Q first-secret", description: "Runs against first-secret", inputSchema: { type: "object" } });
    const entry = await new ToolCache("/nonexistent/tool-cache.json", undefined, async () => file as never).entry(server);
    expect(entry).toEqual({
      instructions: "Uses ***.",
      tools: [{ name: "q", title: "Q ***", description: "Runs against ***", inputSchema: { type: "object" } }],
    });
  });

  it("a tool's schemas come out with the secret redacted where they talk and in enum/const values; the rest of what they validate stays (a property named default too)", async () => {
    const config = { name: "s", transport: "stdio", command: "node", args: [], env: { TOKEN: "first-secret" }, headers: {}, secrets: ["first-secret"] };
    const server = config as unknown as McpServerConfig;
    const inputSchema = {
      type: "object",
      $comment: "for first-secret",
      properties: {
        default: { type: "string", description: "Name first-secret", enum: ["first-secret", "b", "***"] },
        dsn: { type: "string", title: "DSN first-secret", default: "first-secret", examples: ["first-secret"] },
        mode: { type: "string", default: "fast", examples: ["fast"], pattern: "^[a-z]+$" },
        auth: { const: { token: "Bearer first-secret" } },
        hint: { type: "string", example: "first-secret", "x-hint": "send first-secret", markdownDescription: "**first-secret**" },
        list: { type: "array", items: { type: "string", pattern: "^a+$", "x-notes": ["first-secret"] }, anyOf: [{ errorMessage: "not first-secret" }] },
      },
      $defs: { description: { type: "string", description: "first-secret again" } },
    };
    const outputSchema = { type: "object", properties: { rows: { type: "array", items: { description: "rows of first-secret" } } } };
    const file = {
      servers: { s: { fingerprint: configFingerprint(server), savedAt: new Date().toISOString(), tools: [{ name: "q", inputSchema, outputSchema }] } },
    };
    const entry = await new ToolCache("/nonexistent/tool-cache.json", undefined, async () => file as never).entry(server);
    expect(entry?.tools[0]).toEqual({
      name: "q",
      inputSchema: {
        type: "object",
        $comment: "for ***",
        properties: {
          default: { type: "string", description: "Name ***", enum: ["***", "b"] },
          dsn: { type: "string", title: "DSN ***" },
          mode: { type: "string", default: "fast", examples: ["fast"], pattern: "^[a-z]+$" },
          auth: { const: { token: "Bearer ***" } },
          hint: { type: "string", "x-hint": "send ***", markdownDescription: "*******" },
          list: { type: "array", items: { type: "string", pattern: "^a+$", "x-notes": ["***"] }, anyOf: [{ errorMessage: "not ***" }] },
        },
        $defs: { description: { type: "string", description: "*** again" } },
      },
      outputSchema: { type: "object", properties: { rows: { type: "array", items: { description: "rows of ***" } } } },
    });
  });

  it("expandVars lists the values it took from the environment, not defaults or well-known paths", () => {
    const e = expandVars("${TOKEN} ${MISSING:-fallback} ${HOME}/x ${EMPTY:-d}", { TOKEN: "s3cret", HOME: "/home/me", EMPTY: "" });
    expect(e).toEqual({ value: "s3cret fallback /home/me/x d", unset: [], secrets: ["s3cret"] });
  });
});

describe("secrets expanded from ${VAR} stay out of .keel and out of keel mcp / keel call output (real CLI)", () => {
  const token = `ghp_${randomBytes(18).toString("hex")}`;
  let ws: TempWorkspace;
  const runs: { args: string[]; run: CliRun }[] = [];
  const keel = async (...args: string[]) => {
    const run = await runKeel(["--trust", ...args], { cwd: ws.root, env: { ...ws.env, GITHUB_TOKEN: token } });
    runs.push({ args, run });
    return run;
  };
  beforeAll(async () => {
    const closed = await freePort();
    ws = mcpWorkspace({
      leaky: { command: "node", args: ["-e", "console.error('token is ' + process.argv[1]); process.exit(3)", "${GITHUB_TOKEN}"], startupTimeoutMs: 5000 },
      remote: {
        type: "http",
        url: `http://127.0.0.1:${closed}/mcp?key=\${GITHUB_TOKEN}`,
        headers: { Authorization: "Bearer ${GITHUB_TOKEN}" },
        startupTimeoutMs: 5000,
      },
      rec: nodeServer(RECORDING, [], { env: { KEEL_LEAK: "${GITHUB_TOKEN}" } }),
    });
  });
  afterAll(() => ws?.cleanup());

  it("keel mcp list / doctor (text and --json) and tool calls print *** instead of the token", async () => {
    const list = await keel("mcp", "list");
    expect(list.stdout).toMatch(/leaky .*failed/);
    const doctor = await keel("mcp", "doctor");
    expect(doctor.exitCode).toBe(1);
    expect(doctor.stdout).toContain("token is ***"); // the child did print the token: it was redacted
    const json = await keel("--json", "mcp", "list");
    const leaky = json.json().servers.find((s: { name: string }) => s.name === "leaky");
    expect(leaky.state).toBe("failed");
    const doctorJson = await keel("--json", "mcp", "doctor");
    expect(doctorJson.json().servers.find((s: { name: string }) => s.name === "leaky").stderrTail).toContain("token is ***");

    // The server names its token in a tool's title and description (and its instructions): the model and the tool cache get ***.
    const tools = await keel("--json", "tools");
    const leakTool = tools.json().tools.find((t: { name: string }) => t.name === "mcp__rec__leak");
    expect(leakTool.description).toContain("Fails with its secret (***) in the message");
    // ... and in its input schema: a parameter's description says "***", a default holding it is left out, enum and const values show ***
    expect(leakTool.inputSchema).toEqual({
      type: "object",
      properties: {
        message: { type: "string", description: "Sent with ***" },
        scope: { type: "string", enum: ["***", "read"] },
        auth: { const: "Bearer ***" },
      },
    });
    const leak = await keel("--yes", "--json", "call", "mcp__rec__leak");
    expect(leak.json()).toMatchObject({ ok: false, code: "execution_failed", content: "401: token *** was rejected" });
    const crash = await keel("--yes", "--json", "call", "mcp_call_tool", "--input", JSON.stringify({ tool_name: "crash", server: "rec" }));
    expect(crash.json()).toMatchObject({ ok: false, code: "execution_failed" });
    expect(crash.json().content).toContain("panic: token *** is bad");
    const failed = await keel("--yes", "--json", "call", "mcp_call_tool", "--input", JSON.stringify({ tool_name: "anything", server: "leaky" }));
    expect(failed.exitCode).toBe(1);
    const viaHttp = await keel("--yes", "--json", "call", "mcp_list_resources", "--input", JSON.stringify({ server: "remote" }));
    expect(viaHttp.exitCode).toBe(1);

    for (const { args, run } of runs) {
      expect(run.stdout, `stdout of keel ${args.join(" ")}`).not.toContain(token);
      expect(run.stderr, `stderr of keel ${args.join(" ")}`).not.toContain(token);
    }
  });

  it("no file under .keel/ contains the token (events, health, tool cache, sessions, artifacts)", () => {
    expect(runs.length).toBeGreaterThan(0);
    const keelDir = ws.path(".keel");
    expect(existsSync(join(keelDir, "state", "mcp", "health.json"))).toBe(true);
    expect(existsSync(join(keelDir, "state", "mcp", "tool-cache.json"))).toBe(true);
    const events = readFileSync(join(keelDir, "events.jsonl"), "utf8");
    expect(events).toContain('"mcp_server_failed"');
    expect(events).toContain('"mcp_log"');
    expect(filesContaining(keelDir, token)).toEqual([]);
  });
});

describe("a secret holding a quote and a backslash stays out of events.jsonl, however a server logs it (real CLI)", () => {
  // The random part is what must never appear: in any JSON escaping of the secret it stays as written.
  const core = randomBytes(12).toString("hex");
  const secret = `Zq"se\\cr3t-${core}`;
  let ws: TempWorkspace | undefined;
  afterAll(() => ws?.cleanup());

  it("log data holding it JSON-encoded, cut at 4096 characters, is redacted", async () => {
    ws = mcpWorkspace({ rec: nodeServer(RECORDING, [], { env: { KEEL_LEAK: "${KEEL_SECRET}" } }) });
    const run = await runKeel(["--trust", "--yes", "--json", "call", "mcp__rec__leak"], { cwd: ws.root, env: { ...ws.env, KEEL_SECRET: secret } });
    expect(run.json()).toMatchObject({ ok: false, code: "execution_failed" });
    const events = ws
      .read(".keel/events.jsonl")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    // The long log message was cut (so it went through the cut path).
    expect(events.some((e) => e.type === "mcp_log" && /\\"token\\":\\"\*\*\*\\"/.test(e.data) && /\[cut: \d+ characters in all\]$/.test(e.data))).toBe(true);
    expect(run.stdout + run.stderr).not.toContain(core);
    expect(filesContaining(ws.path(".keel"), core)).toEqual([]);
  });
});

describe("a private key a server prints to stderr stays out of keel mcp doctor and .keel (real CLI)", () => {
  const lines = Array.from({ length: 26 }, () => randomBytes(48).toString("base64"));
  const key = ["-----BEGIN PRIVATE KEY-----", ...lines, "-----END PRIVATE KEY-----"].join("\n");
  let ws: TempWorkspace | undefined;
  afterAll(() => ws?.cleanup());

  it("the stderr tail (20 lines of a 28-line key) shows *** in doctor's text and --json output and in the health record", async () => {
    ws = mcpWorkspace({
      app: {
        command: process.execPath,
        args: ["-e", "console.error('starting with key:\\n' + process.env.APP_PRIVATE_KEY); process.exit(3)"],
        env: { APP_PRIVATE_KEY: "${APP_PRIVATE_KEY}" },
        startupTimeoutMs: 5000,
      },
    });
    const env = { ...ws.env, APP_PRIVATE_KEY: key };
    const doctor = await runKeel(["--trust", "mcp", "doctor"], { cwd: ws.root, env });
    expect(doctor.stdout).toMatch(/stderr \(last lines\):\n\s+starting with key:\n\s+\*\*\*\n/);
    const json = await runKeel(["--trust", "--json", "mcp", "doctor"], { cwd: ws.root, env });
    expect(json.json().servers.find((s: { name: string }) => s.name === "app").stderrTail).toBe("starting with key:\n***");
    expect(ws.exists(".keel/state/mcp/health.json")).toBe(true);
    for (const line of lines) {
      expect(doctor.stdout + doctor.stderr + json.stdout + json.stderr).not.toContain(line);
      expect(filesContaining(ws.path(".keel"), line)).toEqual([]);
    }
  });
});
