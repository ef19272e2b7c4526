import type { BinaryPart, ToolResult } from "../../core/index.js";

/** A content block as servers send it (text, image, audio, resource, resource_link). */
interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  title?: string;
  description?: string;
  resource?: { uri: string; mimeType?: string; text?: string; blob?: string };
}

/** The parts of a `tools/call` result keel uses. */
export interface CallToolResultLike {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  toolResult?: unknown;
}

/**
 * How deeply `structuredContent` may nest. Beyond it, `JSON.stringify` (of `keel call --json`, of
 * `keel mcp serve`'s answer, of an embedding program) may overflow the stack: a hostile server's
 * ~20,000 nested objects are 120 KB of text. Real structured results nest a few levels.
 */
export const MAX_DATA_DEPTH = 256;

/**
 * Maps an MCP `CallToolResult` to a keel ToolResult: text parts joined, `structuredContent`
 * → `data` (and, when there is no other content, its JSON text → content), images/audio/blobs → `binary` parts (artifacts, never base64 in content),
 * resource links listed, `isError` → ok:false execution_failed. `structuredContent` nested deeper
 * than MAX_DATA_DEPTH is left out (`data: null`, `metadata.structured_content_omitted` says why). Never throws.
 */
export function mapCallResult(result: CallToolResultLike, metadata: Record<string, unknown>): ToolResult {
  const texts: string[] = [];
  const binary: BinaryPart[] = [];
  const links: { uri: string; name?: string; mimeType?: string }[] = [];
  for (const raw of result.content ?? []) {
    const part = raw as ContentBlock;
    switch (part.type) {
      case "text":
        texts.push(part.text ?? "");
        break;
      case "image":
      case "audio":
        if (part.data) binary.push({ data: Buffer.from(part.data, "base64"), mimeType: part.mimeType ?? "application/octet-stream", kind: part.type });
        break;
      case "resource_link":
        links.push({ uri: part.uri ?? "", name: part.name ?? part.title, mimeType: part.mimeType });
        texts.push(`[resource link] ${part.name ?? part.title ?? ""} ${part.uri ?? ""}`.replace(/\s+/g, " ").trim());
        break;
      case "resource": {
        const r = part.resource;
        if (!r) break;
        if (typeof r.text === "string") texts.push(`[resource ${r.uri}]\n${r.text}`);
        else if (typeof r.blob === "string")
          binary.push({ data: Buffer.from(r.blob, "base64"), mimeType: r.mimeType ?? "application/octet-stream", kind: "blob" });
        break;
      }
      default:
        texts.push(`[unsupported content type ${JSON.stringify(part.type)}]`);
    }
  }
  if (result.content === undefined && result.toolResult !== undefined) texts.push(jsonText(result.toolResult));
  let structured = result.structuredContent;
  let omitted: string | undefined;
  if (structured !== null && typeof structured === "object" && nestedDeeperThan(structured, MAX_DATA_DEPTH)) {
    omitted = `the server's structuredContent nests deeper than ${MAX_DATA_DEPTH} levels; it was left out`;
    structured = undefined;
    if (texts.length === 0 && binary.length === 0) texts.push(`[${omitted}]`);
  }
  // Structured content alone (the spec asks for a text copy, but only SHOULD): the model reads its JSON.
  if (texts.length === 0 && binary.length === 0 && structured !== undefined) texts.push(jsonText(structured));
  const content = texts.join("\n");
  let meta = links.length ? { ...metadata, resource_links: links } : metadata;
  if (omitted) meta = { ...meta, structured_content_omitted: omitted };
  const data = structured ?? null;
  if (result.isError)
    return { ok: false, code: "execution_failed", content: content || "The MCP tool reported an error without a message.", data, metadata: meta, binary };
  return { content, data, metadata: meta, binary };
}

/** True when `value` has a path of more than `limit` nested objects or arrays (iterative: never overflows the stack itself; stops at the first such path). */
export function nestedDeeperThan(value: object, limit: number): boolean {
  const stack: [object, number][] = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}

/** `value` as JSON text; a value JSON cannot hold (nested too deep for the stack) becomes a note saying so. */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch (error) {
    return `[structured content that cannot be shown as JSON: ${error instanceof Error ? error.message : String(error)}]`;
  }
}
