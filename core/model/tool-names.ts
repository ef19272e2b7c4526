import { createHash } from "node:crypto";

/** Longest tool name providers accept. */
export const MAX_TOOL_NAME = 64;
const VALID = /^[A-Za-z0-9_-]{1,64}$/;
/** `namespace.name`: one identifier, a dot, then a name as sent. */
const NAMESPACED = /^[A-Za-z_][A-Za-z0-9_]{0,63}\.([A-Za-z0-9_-]{1,64})$/;

/**
 * A reversible mapping between keel tool names and provider-safe names (≤ 64 chars of
 * `[A-Za-z0-9_-]`). Valid names map to themselves; others are sanitised and, when too long
 * or colliding, shortened with a hash suffix. Deterministic for the same set of names.
 */
export class ToolNameMap {
  private readonly toWire = new Map<string, string>();
  private readonly fromWire = new Map<string, string>();

  /** Builds the mapping for these keel names. */
  constructor(names: Iterable<string>) {
    const sorted = [...new Set(names)].sort((a, b) => Number(!VALID.test(a)) - Number(!VALID.test(b)) || a.localeCompare(b));
    for (const name of sorted) {
      let wire = VALID.test(name) ? name : sanitize(name);
      if (this.fromWire.has(wire)) wire = withHash(wire, name);
      this.toWire.set(name, wire);
      this.fromWire.set(wire, name);
    }
  }

  /** Provider name for a keel name. */
  wire(name: string): string {
    return this.toWire.get(name) ?? sanitize(name);
  }

  /**
   * keel name for a provider name (unknown names pass through, so the pipeline reports them). A name
   * under a namespace, `functions.read_file` (gpt-oss and other models trained on OpenAI's
   * `functions` namespace, Gemini's `default_api.`), is the tool after the dot when the name as
   * given was neither sent nor a keel tool's and that one was sent: a sent name never holds a dot.
   */
  local(wire: string): string {
    const known = this.fromWire.get(wire);
    if (known !== undefined) return known;
    if (this.toWire.has(wire)) return wire; // a keel name itself (`server.tool`), as it passed before
    const bare = NAMESPACED.exec(wire)?.[1];
    return (bare !== undefined && this.fromWire.get(bare)) || wire;
  }
}

function sanitize(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_-]/g, "_") || "tool";
  return clean.length <= MAX_TOOL_NAME ? clean : withHash(clean, name);
}

function withHash(base: string, original: string): string {
  const hash = createHash("sha256").update(original).digest("hex").slice(0, 8);
  return `${base.slice(0, MAX_TOOL_NAME - 9)}_${hash}`;
}
