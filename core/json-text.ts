import { jsonSyntaxError } from "./json-syntax-error.js";

/** The UTF-8 byte order mark as decoded text: Windows editors (Notepad, Visual Studio) start JSON files with it. */
const BOM = "\ufeff";

/** `text` without a leading byte order mark (U+FEFF); any other text as it is. */
export function withoutBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(BOM.length) : text;
}

/**
 * Parses the text of a JSON file keel reads (config, manifests, settings, package.json): strict `JSON.parse` after
 * a leading byte order mark, which an editor does not show, so positions in an error count from the first character
 * the user sees. Throws a SyntaxError of one line naming the line and column where the text breaks
 * (`Unexpected token 'b' in JSON (line 3, column 13)`; see `jsonSyntaxError`), found only when parsing failed.
 */
export function parseJsonText(text: string): unknown {
  const content = withoutBom(text);
  try {
    return JSON.parse(content) as unknown;
  } catch (error) {
    throw jsonSyntaxError(content, error);
  }
}
