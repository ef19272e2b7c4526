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
 * the input the model sends. A pattern RE2 cannot run (lookahead, lookbehind, backreferences) throws:
 * the schema does not compile, and the caller fails as for any schema it cannot compile.
 */
export const schemaRegExp = Object.assign(
  (pattern: string): SchemaRegExp => {
    const { RE2JS: engine } = require("re2js") as typeof import("re2js");
    let re: RE2JS;
    try {
      re = engine.compile(engine.translateRegExp(pattern));
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
