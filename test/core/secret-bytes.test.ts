import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Host } from "../../core/host.js";
import { SecretBytes } from "../../core/secret-bytes.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../helpers/test-host.js";

let ws: TempWorkspace | undefined;
let host: Host | undefined;
closeAfterEach(() => ({ host, ws }));

const utf16be = (text: string) => Buffer.from(text, "utf16le").swap16();

describe("SecretBytes hides secrets in saved bytes", () => {
  it("replaces a non-ASCII secret as UTF-8, UTF-16LE and UTF-16BE with * of the same encoding and byte length", () => {
    const secret = "pässwört-Ключ-9876";
    const bytes = Buffer.concat([
      Buffer.from([0xff, 0x00]),
      Buffer.from(`a=${secret};`),
      Buffer.from([0x07]),
      Buffer.from(`b=${secret};`, "utf16le"),
      utf16be(`c=${secret};`),
    ]);
    const { bytes: hidden, count } = new SecretBytes([secret]).hide(bytes);
    expect(count).toBe(3);
    expect(hidden.length).toBe(bytes.length);
    const stars = "*".repeat(secret.length);
    expect(hidden).toEqual(
      Buffer.concat([
        Buffer.from([0xff, 0x00]),
        Buffer.from(`a=${"*".repeat(Buffer.byteLength(secret))};`),
        Buffer.from([0x07]),
        Buffer.from(`b=${stars};`, "utf16le"),
        utf16be(`c=${stars};`),
      ]),
    );
  });

  it("returns the same buffer, unchanged, when it holds no secret", () => {
    const bytes = Buffer.from("nothing secret here\0", "utf16le");
    const result = new SecretBytes(["ghp_abcdefgh12345678"]).hide(bytes);
    expect(result).toEqual({ bytes, count: 0 });
  });

  it("hides two overlapping secrets whole (both found in the original bytes)", () => {
    const a = "tok_ABCD1234";
    const b = "1234wxyz5678";
    const bytes = Buffer.from(`x tok_ABCD1234wxyz5678 y`, "utf16le");
    const { bytes: hidden } = new SecretBytes([a, b]).hide(bytes);
    expect(hidden.toString("utf16le")).toBe(`x ${"*".repeat(20)} y`);
    expect(bytes.toString("utf16le")).toContain(a); // the input is not changed
  });
});

describe("a tool's binary-looking text saved as an artifact", () => {
  it("hides a token written in UTF-16 in it (read as latin1, one NUL after each character)", async () => {
    const token = "ghp_Utf16InText0123456789abcdefABCDEF";
    ws = makeWorkspace();
    host = await openTestHost(ws, { env: { ...ws.env, GITHUB_TOKEN: token } });
    // A tool of this host (a runtime's, as an MCP server's text would be): its text is UTF-16 bytes as latin1 characters.
    host.registry.register({
      name: "utf16_text",
      description: "returns UTF-16 bytes as text",
      inputSchema: { type: "object", properties: {} },
      source: { kind: "runtime", id: "test" },
      risk: ["read"],
      readOnly: true,
      execute: () => Promise.resolve({ content: Buffer.from(`TOKEN=${token}\n`, "utf16le").toString("latin1") }),
    });
    const obs = await host.runTool({ tool: "utf16_text", input: {} });
    expect(obs.ok, obs.content).toBe(true);
    expect(obs.content).toContain("[binary output");
    expect(obs.content).toMatch(/keel hid a secret value as \*\*\*/);
    const artifact = obs.artifacts?.find((a) => a.kind === "binary-output");
    expect(artifact).toBeDefined();
    const saved = readFileSync(ws.path(artifact!.path));
    expect(saved).toEqual(Buffer.from(`TOKEN=${"*".repeat(token.length)}\n`, "utf16le"));
  });
});
