import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { encodedForms } from "../../../core/encoded-forms.js";
import { redactSecrets } from "../../../core/index.js";
import { secretDumpRedactor } from "../../../core/redact-secrets.js";
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

/** The token a `.env` holds, and that file's text: the token begins on its second line. */
const TOKEN = "ghp_Zq9vX2mP7rL4kW8sAbCdEfGh0123456789";
const ENV_FILE = `APP=demo\nGITHUB_TOKEN=${TOKEN}\nMODE=dev\n`;

/** Each 10 characters of `secret` (and of it reversed) found in `decoded`, an independent reading of a tool's output. */
function windowIn(decoded: readonly string[], secret: string): string | undefined {
  const reversed = [...secret].reverse().join("");
  for (const s of [secret, reversed]) {
    for (let at = 0; at + 10 <= s.length; at++) if (decoded.some((d) => d.includes(s.slice(at, at + 10)))) return s.slice(at, at + 10);
  }
  return undefined;
}

/**
 * What of `secret` an output shows, read independently of keel: the text with its line breaks taken out; each line's
 * columns after its offset read as hex (in order and as little-endian words), as octal bytes and words, and as
 * `od -c` fields; and every hex, base32 and base64 run decoded at each alignment.
 */
function dumpLeak(output: string, secret: string): string | undefined {
  const lines = output.split("\n");
  const decoded = [lines.join(""), lines.map((l) => l.replace(/^\S+\s+/, "")).join("")];
  let inOrder = "";
  let littleEndian = "";
  let octal = "";
  let chars = "";
  for (const line of lines) {
    const columns = line
      .replace(/\s+(?:[|>].*|\s\s.*)$/, "")
      .trim()
      .split(/\s+/)
      .slice(1);
    for (const c of columns) {
      if (/^(?:[0-9a-f]{2})+$/i.test(c)) {
        inOrder += c;
        littleEndian += c.match(/../g)!.reverse().join("");
      }
      if (/^[0-7]{3}$/.test(c)) octal += String.fromCharCode(parseInt(c, 8) & 255);
      if (/^[0-7]{6}$/.test(c)) octal += String.fromCharCode(parseInt(c, 8) & 255, parseInt(c, 8) >> 8);
    }
    for (let i = 7; i + 4 <= line.length; i += 4) chars += line.slice(i, i + 4).trim().length === 1 ? line.slice(i, i + 4).trim() : "?";
  }
  decoded.push(Buffer.from(inOrder, "hex").toString("latin1"), Buffer.from(littleEndian, "hex").toString("latin1"), octal, chars);
  const joined = lines.join("");
  for (const run of joined.match(/[A-Z2-7]{12,}/g) ?? []) {
    for (let shift = 0; shift < 8; shift++) decoded.push(base32Decode(run.slice(shift)));
  }
  for (const run of joined.match(/[0-9a-fA-F]{20,}/g) ?? []) {
    for (let shift = 0; shift < 2; shift++) decoded.push(Buffer.from(run.slice(shift), "hex").toString("latin1"));
  }
  for (const run of joined.match(/[A-Za-z0-9+/]{12,}/g) ?? []) {
    for (let shift = 0; shift < 4; shift++) decoded.push(Buffer.from(run.slice(shift), "base64").toString("latin1"));
  }
  return windowIn(decoded, secret);
}

function base32Decode(text: string): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0;
  let value = 0;
  let out = "";
  for (const c of text) {
    value = (value << 5) | alphabet.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      out += String.fromCharCode((value >> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return out;
}

describe("secrets wrapped short, dumped, in base32 or reversed, as real tools print them", () => {
  let dir = "";
  beforeAll(() => {
    dir = mkdtempSync("/var/tmp/keel-dump-");
    writeFileSync(join(dir, ".env"), ENV_FILE);
    writeFileSync(join(dir, "random.bin"), randomBytes(4096));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const sh = (command: string) => execFileSync("bash", ["-c", command], { cwd: dir, encoding: "utf8" });

  const commands = [
    "fold -w 8 .env",
    "fold -w 3 .env",
    "base64 -w 10 .env",
    "base64 -w 4 .env",
    "xxd -p -c 5 .env",
    "xxd .env",
    "xxd -g1 -c 8 .env",
    "xxd -u -g4 .env",
    "hexdump -C .env",
    "hexdump .env",
    "od -x .env",
    "od .env",
    "od -b .env",
    "od -c .env",
    "od -t x1 .env",
    "od -A x -t x1z .env",
    "base32 .env",
    "base32 -w 12 .env",
    "base32 -w0 .env | tr -d =",
    "rev .env",
  ];

  it.each(commands)("%s shows *** where the token was, and what comes before it as it is", (command) => {
    const output = sh(command);
    expect(dumpLeak(output, TOKEN), `the check reads ${command}`).toBeDefined();
    const hidden = redactSecrets(output, [TOKEN]);
    expect(hidden).toContain("***");
    expect(dumpLeak(hidden, TOKEN), hidden).toBeUndefined();
    expect(hidden.slice(0, 8)).toBe(output.slice(0, 8));
  });

  // Dumps without the offset column: `od -An` (its columns begin with a blank) and hex pairs apart by blanks, on one
  // line without a line break at the end. Read here as what they are: every field a byte (hex pairs, octal bytes, or
  // `od -c`'s four-character fields).
  const bare = {
    "od -An -t x1 .env": (out: string) => Buffer.from(out.replace(/\s+/g, ""), "hex").toString("latin1"),
    "od -An -t x1 -w8 .env": (out: string) => Buffer.from(out.replace(/\s+/g, ""), "hex").toString("latin1"),
    "hexdump -v -e '/1 \"%02x \"' .env": (out: string) => Buffer.from(out.replace(/\s+/g, ""), "hex").toString("latin1"),
    "od -An -b .env": (out: string) =>
      String.fromCharCode(
        ...out
          .trim()
          .split(/\s+/)
          .map((o) => parseInt(o, 8)),
      ),
    "od -An -c .env": (out: string) =>
      out
        .split("\n")
        .map((l) => (l.match(/.{4}/g) ?? []).map((f) => (f.trim().length === 1 ? f.trim() : "?")).join(""))
        .join(""),
  };
  it.each(Object.keys(bare))("%s (no offset column) shows *** where the token was", (command) => {
    const output = sh(command);
    const read = bare[command as keyof typeof bare];
    expect(windowIn([read(output)], TOKEN), `the check reads ${command}`).toBeDefined();
    const hidden = redactSecrets(output, [TOKEN]);
    expect(hidden).toContain("***");
    expect(windowIn([read(hidden.replaceAll("***", "")), hidden], TOKEN), hidden).toBeUndefined();
    expect(hidden.slice(0, 8)).toBe(output.slice(0, 8));
    // The same dump as a string in a structured result (redacted as JSON, where a dump's lines are not lines).
    expect(windowIn([read(secretDumpRedactor([TOKEN])(output).replaceAll("***", ""))], TOKEN)).toBeUndefined();
  });

  it("leaves dumps, base32, hex, git SHAs and UUIDs without the secret as they are", () => {
    const secrets = [TOKEN, "sk-live-0123456789abcdefABCDEF", "correct-horse-battery-9"];
    const texts = [
      sh("xxd random.bin"),
      sh("xxd -p random.bin"),
      sh("hexdump -C random.bin"),
      sh("hexdump random.bin"),
      sh("od -c random.bin"),
      sh("od random.bin"),
      sh("od -A x -t x1z random.bin"),
      sh("od -An -t x1 random.bin"),
      sh("od -An -c random.bin"),
      sh("hexdump -v -e '/1 \"%02x \"' random.bin"),
      sh("base32 random.bin"),
      sh("base64 -w 8 random.bin"),
      sh("fold -w 5 random.bin | base32 -w 9"),
      Array.from({ length: 200 }, () => randomBytes(20).toString("hex")).join("\n"),
      Array.from({ length: 200 }, () => randomUUID()).join("\n"),
      "deadbeef cafebabe 0123456789abcdef\n00000000 these words are no dump\nthe quick brown fox\njumps over the lazy dog\n",
    ];
    for (const text of texts) expect(redactSecrets(text, secrets)).toBe(text);
  });
});

describe("a command that dumps a secret shows it as *** to the model, in its data and in .keel (real CLI)", () => {
  it("xxd, od -c, hexdump -C, fold -w 8, base32 and rev of a .env through keel call bash", async () => {
    ws = makeWorkspace({ ".env": ENV_FILE }, { git: true });
    for (const command of ["xxd .env", "od -c .env", "hexdump -C .env", "fold -w 8 .env", "base32 .env", "rev .env"]) {
      const run = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command })], {
        cwd: ws.root,
        env: { ...ws.env, GITHUB_TOKEN: TOKEN },
      });
      expect(run.exitCode, run.stderr).toBe(0);
      const obs = run.json();
      expect(obs.content, command).toContain("keel hid");
      expect(dumpLeak(obs.content, TOKEN), `${command}: ${obs.content}`).toBeUndefined();
      expect(dumpLeak(obs.data.stdout, TOKEN), `${command}: ${obs.data.stdout}`).toBeUndefined();
      expect(dumpLeak(run.stdout.replace(/\\n/g, "\n"), TOKEN), command).toBeUndefined();
    }
    for (const { file, text } of allFiles(ws.path(".keel"))) expect(dumpLeak(text.replace(/\\n/g, "\n"), TOKEN), file).toBeUndefined();
  });
});
