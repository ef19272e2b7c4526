import {
  type ConfigLayer,
  type ConfigSourceName,
  deepMerge,
  isPlainObject,
  layerMerging,
  type LayerMerging,
  loadConfigLayers,
  ToolError,
  type TrustItem,
  type Workspace,
} from "../../core/index.js";
import { CONFIG_SOURCES } from "./config-source-lists.js";
import { formatKeyPath, getAt, leaves } from "./key-path.js";
import { hideSecrets } from "./secret-values.js";

/** One key of the merged (or one source's) config and where its value came from. */
export interface ConfigEntry {
  key: string;
  value: unknown;
  source: ConfigSourceName;
  file: string;
  /** The value looked like a secret and shows as HIDDEN (see secret-values.ts). */
  hidden?: true;
}

/** Every config layer as read right now (files are re-read on every call, so changes show at once). */
export class ConfigView {
  private constructor(
    /** Layers in merge order, including unparseable ones (with `error`). */
    readonly layers: ConfigLayer[],
    /** Whether the workspace is trusted (an untrusted workspace's layers may only restrict). */
    readonly trusted: boolean,
    private readonly merging: LayerMerging,
  ) {}

  /** Reads every layer of the workspace. */
  static async load(ws: Workspace, trusted: boolean): Promise<ConfigView> {
    const [layers, merging] = await Promise.all([loadConfigLayers(ws), layerMerging()]);
    return new ConfigView(layers, trusted, merging);
  }

  /** What the workspace's layers set that widens, as `keel trust` pins it (see `wideningSettings`). */
  wideningSettings(root: string): TrustItem | undefined {
    return this.merging.wideningSettings(this.parsed(), root);
  }

  /** Parsed layers of one source, or all of them. */
  parsed(source?: ConfigSourceName): ConfigLayer[] {
    return this.layers.filter((l) => l.value && (!source || l.source === source));
  }

  /** Layers that could not be parsed (skipped by the host, never overwritten). */
  get broken(): ConfigLayer[] {
    return this.layers.filter((l) => !l.value);
  }

  /** The effective config as the host merges it (permission rules accumulate, an untrusted workspace only restricts); with `source`, that source's files as written. */
  merged(source?: ConfigSourceName): Record<string, unknown> {
    if (source === undefined) return this.merging.mergeLayers(this.parsed(), this.trusted).value;
    const layers = this.parsed(source);
    const merged = layers.reduce<Record<string, unknown>>((acc, l) => deepMerge(acc, l.value!), {});
    // Permission lists accumulate across files (as the host applies them): every file's rules, as written, not only the last file's.
    for (const list of ["allow", "ask", "deny"] as const) {
      const rules = layers.flatMap((l) => {
        const v = (l.value!.permissions as Record<string, unknown> | undefined)?.[list];
        return Array.isArray(v) ? v : [];
      });
      const writing = layers.filter((l) => Array.isArray((l.value!.permissions as Record<string, unknown> | undefined)?.[list]));
      if (writing.length > 1 && isPlainObject(merged.permissions)) merged.permissions[list] = [...new Set(rules)];
    }
    return merged;
  }

  /**
   * The layer a value at `keys` came from: the last parsed layer that defines it — in the merged
   * view, the last layer that contributes it (Claude settings only contribute permissions; an
   * untrusted workspace only restrict-only keys). Accumulated permission rules report the last layer adding some.
   */
  origin(keys: string[], source?: ConfigSourceName): ConfigLayer | undefined {
    const value = (l: ConfigLayer) => (source === undefined ? this.merging.contribution(l, this.trusted).value : l.value);
    return [...this.parsed(source)].reverse().find((l) => getAt(value(l), keys) !== undefined) ?? this.parsed(source)[0];
  }

  /** Every leaf key with its value and origin, in key order; with `hide`, secret-looking values show as HIDDEN. */
  entries(source?: ConfigSourceName, hide = true): ConfigEntry[] {
    return leaves(this.merged(source))
      .map(([keys, raw]): ConfigEntry => {
        const layer = this.origin(keys, source)!;
        const { value, hidden } = hide ? hideSecrets(keys, raw) : { value: raw, hidden: 0 };
        return { key: formatKeyPath(keys), value, source: layer.source, file: layer.file, ...(hidden ? { hidden: true } : {}) };
      })
      .sort((a, b) => a.key.localeCompare(b.key));
  }

  /** Value at `keys` with its origin; for objects, the sources of every leaf under it. */
  lookup(keys: string[], source?: ConfigSourceName): { value: unknown; layer: ConfigLayer; sources: ConfigSourceName[] } | undefined {
    const value = getAt(this.merged(source), keys);
    if (value === undefined) return undefined;
    const layer = this.origin(keys, source)!;
    const sources = isPlainObject(value) ? [...new Set(leaves(value, keys).map(([k]) => this.origin(k, source)!.source))] : [layer.source];
    return { value, layer, sources };
  }
}

/** Checks a source name given by a caller; ToolError listing the valid ones otherwise. */
export function checkSource(source: string | undefined): ConfigSourceName | undefined {
  if (source === undefined || source === "merged" || source === "all") return undefined;
  if ((CONFIG_SOURCES as string[]).includes(source)) return source as ConfigSourceName;
  throw new ToolError(
    `Unknown config source ${JSON.stringify(source)}: use one of ${CONFIG_SOURCES.join(", ")} (or omit it for the merged view).`,
    "schema_invalid",
  );
}
