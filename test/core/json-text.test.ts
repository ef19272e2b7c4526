import { describe, expect, it } from "vitest";
import { parseJsonText } from "../../core/json-text.js";

/** The error `parseJsonText` throws for `text`. */
function errorOf(text: string): Error {
  try {
    parseJsonText(text);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`parsed: ${text}`);
}

describe("parseJsonText's errors: one line, with the line and column where the JSON breaks", () => {
  it.each([
    // Node 20 gives these no position, and puts a piece of the text (with its newlines) in the message.
    ['{\n  "field": bad\n}', "Unexpected token 'b' in JSON (line 2, column 12)"],
    ['{\n  "a": tru\n}', "Unexpected token '\\u000a' in JSON (line 2, column 11)"],
    [`{"long": "${"x".repeat(40)}",\n "b": bad, "c": "${"y".repeat(40)}"}`, "Unexpected token 'b' in JSON (line 2, column 7)"],
    ['{"a": NaN}', "Unexpected token 'N' in JSON (line 1, column 7)"],
    ["[1,\r\n]", "Unexpected token ']' in JSON (line 2, column 1)"],
    ['{"a": .5}', "Unexpected token '.' in JSON (line 1, column 7)"],
    ["", "Unexpected end of JSON input (line 1, column 1)"],
    ['{\n  "a": [1,\n', "Unexpected end of JSON input (line 3, column 1)"],
    // Those with a position keep their words; the position becomes a line and column.
    ['{\n  "permissions": {\n    "deny": [],\n  }\n}\n', "Expected double-quoted property name in JSON (line 4, column 3)"],
    ['{"a": "x\ny"}', "Bad control character in string literal in JSON (line 1, column 9)"],
    ['{"a": 1} /* no */', "Unexpected non-whitespace character after JSON (line 1, column 10)"],
  ])("%j", (text, message) => {
    const error = errorOf(text);
    expect(error).toBeInstanceOf(SyntaxError);
    expect(error.message).toBe(message);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it("counts from the first character an editor shows: a byte order mark is not counted", () => {
    expect(errorOf('\ufeff{\n "a": bad}').message).toBe("Unexpected token 'b' in JSON (line 2, column 7)");
  });

  it("an invisible character JSON.parse names is escaped, so the message stays one line and cannot drive a terminal", () => {
    expect(errorOf('{"a": 1,\u2028"b": 2}').message).toBe("Expected double-quoted property name in JSON (line 1, column 9)");
    expect(errorOf('{"a":\u001b[2J 1}').message).toBe("Unexpected token '\\u001b' in JSON (line 1, column 6)");
    expect(errorOf("[\u2028]").message).toBe("Unexpected token '\\u2028' in JSON (line 1, column 2)");
  });

  it("a text nested too deep for the locator still gets a place (the end of the text)", () => {
    const text = "[".repeat(200_000);
    expect(errorOf(text).message).toBe(`Unexpected end of JSON input (line 1, column ${text.length + 1})`);
  });
});
