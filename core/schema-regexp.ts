import { createRequire } from "node:module";
import type { RE2JS } from "re2js";
import { errorMessage } from "./errors.js";

const require = createRequire(import.meta.url);

/** What ajv needs of a regular expression: `test`, and `toString`, ajv's cache key for it (as a RegExp's `/source/flags`). */
export interface SchemaRegExp {
  test(input: string): boolean;
  toString(): string;
}

/**
 * The regular expression engine for JSON Schema `pattern`, `patternProperties` and
 * `propertyNames` (ajv's `code.regExp`): the pattern's JavaScript syntax (`\uXXXX`, `(?<name>…)`,
 * `[^]`) is translated to RE2 and run by re2js, whose matching time is linear in the input, so a
 * schema written by a workspace plugin or an MCP server (`"pattern": "^(a+)+$"`) cannot hang keel on
 * the input the model sends. `.`, `\s` and `\S` keep their JavaScript meaning (`withJsClasses`). A pattern RE2 cannot run (lookahead, lookbehind, backreferences) throws:
 * the schema does not compile, and the caller fails as for any schema it cannot compile.
 */
export const schemaRegExp = Object.assign(
  (pattern: string): SchemaRegExp => {
    const { RE2JS: engine } = require("re2js") as typeof import("re2js");
    let re: RE2JS;
    try {
      re = engine.compile(engine.translateRegExp(withJsClasses(pattern)));
    } catch (error) {
      throw new Error(
        `pattern ${JSON.stringify(pattern)} cannot be checked: keel runs schema patterns on RE2 (linear time, so no pattern can hang it), which has no lookahead, lookbehind or backreferences (${errorMessage(error)}); rewrite the pattern without them`,
        { cause: error },
      );
    }
    // ajv shares compiled patterns by `toString()`: it must differ for every pattern.
    return { test: (input) => re.test(input), toString: () => `/${pattern}/re2` };
  },
  // Only read by ajv's standalone code generation, which keel does not use.
  { code: 'require("re2js")' },
);

/** What JavaScript's `\s` matches (Unicode spaces and line terminators, BOM), as the ranges of a character class. */
const JS_SPACE = "\\t-\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";

/** What JavaScript's `\S` matches: every code point but JS_SPACE's. */
const JS_NON_SPACE =
  "\\u0000-\\u0008\\u000e-\\u001f\\u0021-\\u009f\\u00a1-\\u167f\\u1681-\\u1fff\\u200b-\\u2027\\u202a-\\u202e\\u2030-\\u205e\\u2060-\\u2fff\\u3001-\\ufefe\\uff00-\\u{10FFFF}";

/**
 * `pattern` with `.`, `\s` and `\S` spelled as the character classes they are in JavaScript, for RE2, where `.`
 * also matches `\r`, U+2028 and U+2029 and `\s` is ASCII only: `"^.*$"` (one line) accepted `"a\rb"` and `"^\S+$"`
 * accepted a no-break space. Other escapes are copied as they are; never throws.
 */
export function withJsClasses(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\" && i + 1 < pattern.length) {
      const next = pattern[++i]!;
      if (next === "s") out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (next === "S") out += inClass ? JS_NON_SPACE : `[${JS_NON_SPACE}]`;
      else out += c + next;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
      // `[^]` (anything) and `[]` (nothing): the `]` right after the opening ends the class in JavaScript.
      if (pattern[i + 1] === "^") out += pattern[++i];
      if (pattern[i + 1] === "]") {
        out += pattern[++i];
        inClass = false;
      }
    } else out += c === "." ? "[^\\n\\r\\u2028\\u2029]" : c;
  }
  return out;
}
