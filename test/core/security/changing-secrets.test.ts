import { describe, expect, it } from "vitest";
import { redactorForChangingSecrets } from "../../../core/index.js";

describe("redactorForChangingSecrets", () => {
  it("hides the secrets of each call, rebuilding when they change (a server's secrets grow with each OAuth token)", () => {
    const redact = redactorForChangingSecrets();
    const first = "tok-aaaaaaaaaaa";
    const second = "tok-bbbbbbbbbbb"; // 15 bytes: its base64 has no padding, all of it the secret's own
    const text = `a ${first} b ${second} c ${Buffer.from(second).toString("base64")}`;
    expect(redact(text, [first])).toBe(`a *** b ${second} c ${Buffer.from(second).toString("base64")}`);
    // Same secrets (a new array with the same values): same answer.
    expect(redact(text, [first])).toBe(`a *** b ${second} c ${Buffer.from(second).toString("base64")}`);
    // A token added: hidden from then on, in its encoded forms too.
    expect(redact(text, [first, second])).toBe("a *** b *** c ***");
    // A set without the first: the first shows again (the redactor follows the secrets given, not a stale set).
    expect(redact(text, [second])).toBe(`a ${first} b *** c ***`);
    expect(redact(text, [])).toBe(text);
  });
});
