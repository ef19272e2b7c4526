import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const TOKEN = "ghp_SecretCutTest0123456789abcdefABCDEFGH";
/** The start of TOKEN a cut through it would show. */
const PREFIX = TOKEN.slice(0, 10);

describe("a secret a tool cuts through is hidden whole, not shown in part", () => {
  it("bash's stdout in the result's data, cut at the output budget, shows no start of your token", async () => {
    // One line: the head of the cut ends 17 880 characters in (60% of the 30 000 budget less the marker's room).
    ws = makeWorkspace({ "big.txt": `${"x".repeat(17_860)}${TOKEN}${"y".repeat(40_000)}` });
    const env = { ...ws.env, GITHUB_TOKEN: TOKEN };
    const run = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: "cat big.txt" })], { cwd: ws.root, env });
    const obs = run.json();
    expect(obs.ok, run.stdout).toBe(true);
    expect(obs.data.stdout).toContain("truncated");
    expect(obs.data.stdout).not.toContain(PREFIX);
    expect(run.stdout).not.toContain(PREFIX);
  });

  it("grep's match on a long line, cut at 400 characters, shows no start of your token", async () => {
    ws = makeWorkspace({ "config.min.json": `{"name":"app",${'"pad":"'.padEnd(360, "p")}","apiToken":"${TOKEN}","other":1}\n` });
    const env = { ...ws.env, GITHUB_TOKEN: TOKEN };
    const run = await runKeel(["--json", "call", "grep", "--input", JSON.stringify({ pattern: "name" })], { cwd: ws.root, env });
    const obs = run.json();
    expect(obs.ok, run.stdout).toBe(true);
    expect(obs.content).toContain("config.min.json:1:");
    expect(run.stdout).not.toContain(PREFIX);
  });
});

describe("binary output kept as an artifact hides your credentials too", () => {
  it("bash printing a token next to a NUL byte saves the artifact with * in its place, of the token's length", async () => {
    ws = makeWorkspace({ "pairs.bin": `GITHUB_TOKEN=${TOKEN}\0MODE=x\0` });
    const env = { ...ws.env, GITHUB_TOKEN: TOKEN };
    const run = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: "cat pairs.bin" })], { cwd: ws.root, env });
    const obs = run.json();
    expect(obs.ok, run.stdout).toBe(true);
    expect(obs.content).toContain("stdout is binary");
    expect(obs.content).toMatch(/keel hid a secret value as \*\*\*/);
    const saved = readdirSync(ws.path(".keel"), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), "latin1"))
      .join("\n");
    // Same length: offsets in the rest of a binary stay as they were.
    expect(saved).toContain(`GITHUB_TOKEN=${"*".repeat(TOKEN.length)}\0MODE=x\0`);
    expect(saved).not.toContain(TOKEN);
  });
});

describe("a UTF-16 file without a byte order mark (binary to keel) keeps no credential in its artifact", () => {
  /** Every file keel wrote under `.keel`, as bytes. */
  const savedUnderKeel = (root: TempWorkspace): Buffer[] =>
    readdirSync(root.path(".keel"), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name)));
  const utf16be = (text: string) => Buffer.from(text, "utf16le").swap16();

  it.each([
    ["UTF-16LE", (text: string) => Buffer.from(text, "utf16le")],
    ["UTF-16BE", utf16be],
  ])("read_file of a %s .env saves it with * of the same encoding and length in the token's place", async (_name, encode) => {
    ws = makeWorkspace();
    writeFileSync(ws.path(".env"), encode(`GITHUB_TOKEN=${TOKEN}\nMODE=x\n`));
    const env = { ...ws.env, GITHUB_TOKEN: TOKEN };
    const run = await runKeel(["--yes", "--json", "call", "read_file", "--input", JSON.stringify({ path: ".env" })], { cwd: ws.root, env });
    const obs = run.json();
    expect(obs.ok, run.stdout).toBe(true);
    expect(obs.artifacts).toHaveLength(1);
    expect(obs.content).toMatch(/keel hid a secret value as \*\*\*/);
    const saved = readFileSync(ws.path(obs.artifacts[0].path));
    expect(saved).toEqual(encode(`GITHUB_TOKEN=${"*".repeat(TOKEN.length)}\nMODE=x\n`));
    for (const file of savedUnderKeel(ws)) {
      for (const form of [Buffer.from(TOKEN), Buffer.from(TOKEN, "utf16le"), utf16be(TOKEN)]) expect(file.includes(form)).toBe(false);
    }
  });

  it("bash's binary stdout of such a file (at an odd offset too) hides the token in every encoding", async () => {
    // One stray byte first: the UTF-16 text starts at an odd offset.
    ws = makeWorkspace();
    writeFileSync(ws.path("creds.bin"), Buffer.concat([Buffer.from([0x01]), Buffer.from(`TOKEN=${TOKEN}\n`, "utf16le"), utf16be(TOKEN)]));
    const env = { ...ws.env, GITHUB_TOKEN: TOKEN };
    const run = await runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command: "cat creds.bin" })], { cwd: ws.root, env });
    const obs = run.json();
    expect(obs.ok, run.stdout).toBe(true);
    expect(obs.content).toContain("stdout is binary");
    expect(obs.content).toMatch(/keel hid a secret value as \*\*\*/);
    const stars = "*".repeat(TOKEN.length);
    const saved = readFileSync(ws.path(obs.artifacts.find((a: { kind: string }) => a.kind === "stdout").path));
    expect(saved).toEqual(Buffer.concat([Buffer.from([0x01]), Buffer.from(`TOKEN=${stars}\n`, "utf16le"), utf16be(stars)]));
    for (const file of savedUnderKeel(ws)) {
      for (const form of [Buffer.from(TOKEN), Buffer.from(TOKEN, "utf16le"), utf16be(TOKEN)]) expect(file.includes(form)).toBe(false);
    }
  });
});

describe("a private key from your environment in a UTF-16 file with CRLF line ends", () => {
  it("read_file's artifact holds none of its body lines, though the key with \\n is nowhere in it whole", async () => {
    const body = [
      "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
      "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
      "LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo",
    ];
    const key = ["-----BEGIN RSA PRIVATE KEY-----", ...body, "-----END RSA PRIVATE KEY-----"].join("\n");
    ws = makeWorkspace();
    writeFileSync(ws.path("key.txt"), Buffer.from(`${key.replaceAll("\n", "\r\n")}\r\n`, "utf16le"));
    const env = { ...ws.env, DEPLOY_PRIVATE_KEY: key };
    const run = await runKeel(["--yes", "--json", "call", "read_file", "--input", JSON.stringify({ path: "key.txt" })], { cwd: ws.root, env });
    const obs = run.json();
    expect(obs.ok, run.stdout).toBe(true);
    expect(obs.artifacts).toHaveLength(1);
    const saved = readFileSync(ws.path(obs.artifacts[0].path)).toString("utf16le");
    expect(saved).toContain("-----BEGIN RSA PRIVATE KEY-----\r\n****");
    for (const line of body) expect(saved).not.toContain(line.slice(0, 20));
  });
});
