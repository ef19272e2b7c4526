import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { redactSecrets } from "../../../core/index.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const BEGIN = "-----BEGIN RSA PRIVATE KEY-----";
const END = "-----END RSA PRIVATE KEY-----";
const body = Array.from({ length: 12 }, () => randomBytes(48).toString("base64"));
const key = [BEGIN, "Proc-Type: 4,ENCRYPTED", `DEK-Info: AES-128-CBC,${randomBytes(16).toString("hex").toUpperCase()}`, "", ...body, END].join("\n");
const doc = ["A key file starts with", BEGIN, "and ends with", END, "Other keys: -----BEGIN PRIVATE KEY----- / -----END PRIVATE KEY-----", "========"].join(
  "\n",
);

describe("a secret PEM key: its armour lines are no secret on their own, its body is", () => {
  it("a document or fixture naming the armour lines is shown as it is", () => {
    expect(redactSecrets(doc, [key])).toBe(doc);
    expect(redactSecrets("Proc-Type: 4,ENCRYPTED", [key])).toBe("Proc-Type: 4,ENCRYPTED");
  });

  it("the key itself, its body lines on their own, the key cut inside its body and its encoded forms stay hidden", () => {
    expect(redactSecrets(`key:\n${key}\ndone`, [key])).toBe("key:\n***\ndone");
    // Cut at a line's start (a stderr ring drops the line it cut into): every body line after it is hidden, the armour shows.
    const shown = redactSecrets(`${key.slice(key.indexOf(body[5]!))}\nexiting`, [key]);
    for (const line of body) expect(shown).not.toContain(line.slice(10, 30));
    expect(shown).toMatch(/^(\*\*\*\n){7}-----END RSA PRIVATE KEY-----\nexiting$/);
    for (const line of body) expect(redactSecrets(`x ${line} y`, [key])).toBe("x *** y");
    for (const form of [Buffer.from(key).toString("base64"), Buffer.from(key).toString("hex"), JSON.stringify(key).slice(1, -1), encodeURIComponent(key)])
      expect(redactSecrets(`[${form}]`, [key])).toMatch(/^\[\*\*\*.{0,4}\]$/); // a base64 end may keep its last group (padding)
  });

  it("a secret's line of few different characters is hidden on its own when it holds a letter or digit (numeric codes); only a rule is not", () => {
    const codes = ["1212 1212", "3434 4343", "77777777", "abababab", "1234 5678"];
    const secret = [...codes, "========", "| --- | --- |"].join("\n");
    for (const line of codes) expect(redactSecrets(`code: ${line}.`, [secret])).toBe("code: ***.");
    for (const rule of ["========", "| --- | --- |"]) expect(redactSecrets(`a\n${rule}\nb`, [secret])).toBe(`a\n${rule}\nb`);
  });

  it("in a tool result (real CLI): a key from the environment hides in `cat`, a README naming the armour does not", async () => {
    ws = makeWorkspace({ "README.md": doc, "key.pem": key });
    const env = { ...ws.env, APP_PRIVATE_KEY: key };
    const read = await runKeel(["--json", "call", "read_file", "--input", '{"path":"README.md"}'], { cwd: ws.root, env });
    expect(read.json().content, read.stderr).toContain(BEGIN);
    expect(read.json().content).toContain(END);
    const cat = await runKeel(["--yes", "--json", "call", "bash", "--input", '{"command":"cat key.pem; base64 -w 60 key.pem"}'], { cwd: ws.root, env });
    const content: string = cat.json().content;
    for (const line of body) expect(content).not.toContain(line.slice(10, 30));
    expect(content).not.toContain(Buffer.from(key).toString("base64").slice(100, 140));
  });
});
