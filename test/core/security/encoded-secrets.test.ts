import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { encodedForms } from "../../../core/encoded-forms.js";
import { redactSecrets } from "../../../core/index.js";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/**
 * True when `text` holds 10 or more characters of `secret` once its base64 (standard or URL-safe, wrapped or not,
 * at any of the 4 character offsets) or hex runs are decoded: an independent decoder, not keel's list of forms.
 */
function leaksEncoded(text: string, secret: string): boolean {
  const joined = text.replace(/\\+r|\\+n/g, "\n").replace(/\r?\n[ \t]*/g, "");
  const decoded: string[] = [];
  for (const run of joined.match(/[A-Za-z0-9+/_=-]{12,}/g) ?? []) {
    const std = run.replace(/-/g, "+").replace(/_/g, "/");
    for (let shift = 0; shift < 4; shift++) decoded.push(Buffer.from(std.slice(shift), "base64").toString("latin1"));
    for (let shift = 0; shift < 2; shift++) decoded.push(Buffer.from(run.slice(shift), "hex").toString("latin1"));
  }
  for (let at = 0; at + 10 <= secret.length; at++) if (decoded.some((d) => d.includes(secret.slice(at, at + 10)))) return true;
  return false;
}

/** Every file under `dir` (recursively), as text. */
function allFiles(dir: string): { file: string; text: string }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => ({ file: join(e.parentPath, e.name), text: readFileSync(join(e.parentPath, e.name), "utf8") }));
}

describe("encoded forms of a secret", () => {
  const secret = "tok-Zq9vX2mP7rL4kW8s";

  it("base64 (standard and URL-safe, each alignment, wrapped or not, JSON-escaped) and hex forms are *** wherever the secret sits", () => {
    for (let before = 0; before < 80; before++) {
      const text = `${"x".repeat(before)}TOKEN=${secret}\nMODE=dev and some more words to wrap\n`;
      const bytes = Buffer.from(text);
      const b64 = bytes.toString("base64");
      const shown = [
        b64,
        b64.replace(/.{76}/g, "$&\n"), // `base64` wraps at 76
        bytes.toString("base64url"),
        bytes.toString("hex").replace(/.{60}/g, "$&\n"), // `xxd -p` wraps at 60
        bytes.toString("hex").toUpperCase(),
        JSON.stringify({ stdout: b64.replace(/.{76}/g, "$&\n") }),
        b64.replace(/.{64}/g, "$&\n    "), // indented, as in a YAML block scalar
        JSON.stringify({ stdout: b64.replace(/.{64}/g, "$&\\n") }), // a JSON file's `\n` escapes, in a result's data
      ];
      for (const form of shown) {
        const hidden = redactSecrets(form, [secret]);
        expect(hidden, `${before}: ${form}`).toContain("***");
        expect(leaksEncoded(hidden, secret), `${before}: ${hidden}`).toBe(false);
      }
    }
  });

  it("leaves encoded text without the secret as it is, and gives short secrets no encoded forms", () => {
    const blob = randomBytes(3000).toString("base64").replace(/.{76}/g, "$&\n");
    expect(redactSecrets(blob, [secret])).toBe(blob);
    expect(encodedForms("short-1")).toEqual([]);
    expect(redactSecrets(Buffer.from("pw=abc1234").toString("base64"), ["abc1234"])).toBe(Buffer.from("pw=abc1234").toString("base64"));
  });
});

describe("a command that prints a secret encoded shows it as *** to the model and in .keel (real CLI)", () => {
  it("base64 .env, base64url and hex of it: the model and the session files get none of the token", async () => {
    const token = `ghp_${randomBytes(24).toString("base64url")}`;
    ws = makeWorkspace({ ".env": `APP=demo\nGITHUB_TOKEN=${token}\nMODE=dev\n` }, { git: true });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl, apiKeyEnv: "KEEL_TEST_KEY" } });
    const node = JSON.stringify(process.execPath);
    const commands = ["base64 .env", "base64 -w0 .env | tr '+/' '-_'", `${node} -e "process.stdout.write(require('fs').readFileSync('.env').toString('hex'))"`];
    server.push({ toolCalls: commands.map((command, i) => ({ id: `b${i}`, name: "bash", arguments: { command } })) }, { text: "done" });
    const run = await runKeel(["--yes", "--json", "run", "encode the env file"], {
      cwd: ws.root,
      env: { ...ws.env, GITHUB_TOKEN: token, KEEL_TEST_KEY: "test-key-0000" },
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const results = server.requests.at(-1)!.messages.filter((m) => m.role === "tool");
    expect(results).toHaveLength(3);
    for (const r of results) {
      const content = typeof r.content === "string" ? r.content : JSON.stringify(r.content);
      expect(content).toContain("***");
      expect(content).toContain("keel hid");
      expect(leaksEncoded(content, token), content).toBe(false);
    }
    expect(leaksEncoded(JSON.stringify(server.requests), token)).toBe(false);
    expect(leaksEncoded(run.stdout + run.stderr, token)).toBe(false);
    for (const { file, text } of allFiles(ws.path(".keel"))) expect(leaksEncoded(text, token), file).toBe(false);
  });
});
