import type { Diagnostics } from "./diagnostics.js";
import type { ToolAlias, ToolDefinition, ToolSource } from "./types.js";

/** The result of resolving a name: the base tool plus the alias used, if any. */
export interface ResolvedTool {
  /** The base tool (schema and behaviour). */
  tool: ToolDefinition;
  /** Present when the name was an alias. */
  alias?: ToolAlias;
  /** The name as called. */
  name: string;
}

/** A row of the unified listing (`keel tools`). */
export interface ToolListing {
  name: string;
  description: string;
  source: ToolSource;
  inputSchema: ToolDefinition["inputSchema"];
  risk: ToolDefinition["risk"];
  readOnly: boolean;
  /** Set for aliases: the base tool's name. */
  aliasOf?: string;
}

/**
 * The one tool registry. Duplicate names are rejected with a diagnostic (first wins);
 * aliases resolve to their base tool; a whole source can be removed.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();
  private readonly aliases = new Map<string, ToolAlias>();
  /** Bumped on every change; consumers cache on it. */
  version = 0;

  constructor(private readonly diagnostics: Diagnostics) {}

  /** Registers a tool; returns false (with a diagnostic) if the name is taken or invalid. */
  register(tool: ToolDefinition): boolean {
    const taken = this.owner(tool.name);
    if (taken) {
      this.diagnostics.error("registry", `Tool "${tool.name}" from ${fmt(tool.source)} was skipped: the name is already taken by ${taken}.`);
      return false;
    }
    if (invalidName(tool.name)) {
      this.diagnostics.error("registry", `Tool name ${JSON.stringify(tool.name)} from ${fmt(tool.source)} is invalid (empty or has spaces).`);
      return false;
    }
    this.tools.set(tool.name, tool);
    this.version++;
    return true;
  }

  /** Registers an alias; returns false (with a diagnostic) if the base is missing or the name taken or invalid (as for register). */
  addAlias(alias: ToolAlias): boolean {
    const taken = this.owner(alias.name);
    if (taken) {
      this.diagnostics.error("registry", `Alias "${alias.name}" from ${fmt(alias.source)} was skipped: the name is already taken by ${taken}.`);
      return false;
    }
    if (invalidName(alias.name)) {
      this.diagnostics.error("registry", `Alias name ${JSON.stringify(alias.name)} from ${fmt(alias.source)} is invalid (empty or has spaces).`);
      return false;
    }
    if (!this.resolve(alias.target)) {
      this.diagnostics.error("registry", `Alias "${alias.name}" from ${fmt(alias.source)} was skipped: base tool "${alias.target}" does not exist.`);
      return false;
    }
    this.aliases.set(alias.name, alias);
    this.version++;
    return true;
  }

  /** Resolves a name (tool or alias chain) to its base tool; undefined if unknown. */
  resolve(name: string): ResolvedTool | undefined {
    const direct = this.tools.get(name);
    if (direct) return { tool: direct, name };
    let alias = this.aliases.get(name);
    const first = alias;
    for (let depth = 0; alias && depth < 8; depth++) {
      const tool = this.tools.get(alias.target);
      if (tool) return { tool, alias: first, name };
      alias = this.aliases.get(alias.target);
    }
    return undefined;
  }

  /** True if the name is a tool or alias. */
  has(name: string): boolean {
    return this.tools.has(name) || this.aliases.has(name);
  }

  /** The base tool of that exact name (no alias resolution). */
  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  /** Every base tool, in registration order. */
  list(): ToolDefinition[] {
    return [...this.tools.values()];
  }

  /** Every alias, in registration order. */
  listAliases(): ToolAlias[] {
    return [...this.aliases.values()];
  }

  /** Tools and aliases as one listing, sorted by name (code-unit order, the same in every locale). Aliases carry the base schema. */
  listing(): ToolListing[] {
    const rows: ToolListing[] = this.list().map((t) => ({
      name: t.name,
      description: t.description,
      source: t.source,
      inputSchema: t.inputSchema,
      risk: t.risk,
      readOnly: t.readOnly,
    }));
    for (const a of this.aliases.values()) {
      const base = this.resolve(a.name);
      if (!base) continue;
      rows.push({
        name: a.name,
        description: a.description ?? base.tool.description,
        source: a.source,
        inputSchema: base.tool.inputSchema,
        risk: base.tool.risk,
        readOnly: base.tool.readOnly,
        aliasOf: base.tool.name,
      });
    }
    // Code-unit order: names are identifiers, the order is the same on every machine whatever its locale
    // (a stable tool list for the model), and no collator is built (ICU's costs ~10 ms of start-up).
    return rows.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  }

  /** Removes every tool and alias from a source (e.g. an MCP server that disconnected); returns removed names. */
  removeBySource(kind: ToolSource["kind"], id: string): string[] {
    const removed: string[] = [];
    for (const [name, tool] of this.tools) {
      if (tool.source.kind === kind && tool.source.id === id) {
        this.tools.delete(name);
        removed.push(name);
      }
    }
    for (const [name, alias] of this.aliases) {
      if (alias.source.kind === kind && alias.source.id === id) {
        this.aliases.delete(name);
        removed.push(name);
      }
    }
    if (removed.length) this.version++;
    return removed;
  }

  private owner(name: string): string | undefined {
    const tool = this.tools.get(name);
    if (tool) return fmt(tool.source);
    const alias = this.aliases.get(name);
    if (alias) return `${fmt(alias.source)} (alias)`;
    return undefined;
  }
}

/** A name neither a tool nor an alias may have: empty, or with whitespace. */
function invalidName(name: string): boolean {
  return !name || /\s/.test(name);
}

/** `plugin:<id>`, `mcp:<id>`, `builtin`, `runtime:<id>`. */
export function fmt(source: ToolSource): string {
  return source.kind === "builtin" ? "builtin" : `${source.kind}:${source.id}`;
}
