import { createHash } from "node:crypto";

/** Maximum length of a registered tool name (model APIs reject longer ones). */
export const MAX_TOOL_NAME = 64;

/** Short stable hash of a text (8 hex characters). */
export function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 8);
}

/** Replaces every character outside `[A-Za-z0-9_-]` with `_`. */
export function sanitize(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}

/**
 * `mcp__<server>__<tool>`, sanitized; names over 64 characters are cut and get a stable
 * `_<hash>` suffix of the unsanitized pair, so the same server/tool always gets the same name.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `mcp__${sanitize(server)}__${sanitize(tool)}`;
  if (name.length <= MAX_TOOL_NAME) return name;
  return withSuffix(name, shortHash(`${server}\u0000${tool}`));
}

/** A name cut to fit 64 characters with `_<suffix>` appended. */
export function withSuffix(name: string, suffix: string): string {
  return `${name.slice(0, MAX_TOOL_NAME - suffix.length - 1)}_${suffix}`;
}

/** One server tool that needs a registered name. */
export interface NamedTool {
  server: string;
  tool: string;
  name: string;
}

/**
 * Assigns registered names to server tools. When two pairs sanitize to the same name (or a name is
 * already registered), the pair that sorts first (server, then tool, by code point) keeps it and the
 * others get a hash suffix; a suffixed name that is itself taken (a name already cut to 64 characters
 * keeps its suffix when cut again, and a server may name a tool like another's suffixed name) gets
 * the hash of the pair and a counter instead, so every pair ends with a name of its own. Each rename
 * is reported through `onCollision`, with the pair holding the name when it is one of `pairs`. Deterministic.
 */
export function assignToolNames(
  pairs: { server: string; tool: string }[],
  taken: (name: string) => boolean,
  onCollision: (t: NamedTool, clashedWith: string, holder?: { server: string; tool: string }) => void,
): NamedTool[] {
  const sorted = [...pairs].sort((a, b) => (a.server === b.server ? cmp(a.tool, b.tool) : cmp(a.server, b.server)));
  const used = new Map<string, { server: string; tool: string }>();
  const free = (name: string) => !used.has(name) && !taken(name);
  const out: NamedTool[] = [];
  for (const p of sorted) {
    let name = mcpToolName(p.server, p.tool);
    if (!free(name)) {
      const clashed = name;
      name = withSuffix(name, shortHash(`${p.server}\u0000${p.tool}`));
      for (let n = 1; !free(name); n++) name = withSuffix(clashed, shortHash(`${p.server}\u0000${p.tool}\u0000${n}`));
      onCollision({ ...p, name }, clashed, used.get(clashed));
    }
    used.set(name, p);
    out.push({ ...p, name });
  }
  return out;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
