import { ManifestError } from "../errors.js";
import type { Workspace } from "../workspace.js";
import { KeelConfigSchema, type KeelConfig } from "./config-schema.js";
import {
  type ConfigLayer,
  jsonLayerFiles,
  loadProjectLayer,
  localConfigFile,
  readJsonLayer,
} from "./config-sources.js";

/** The merged config plus the layers it came from. */
export interface LoadedConfig {
  config: KeelConfig;
  layers: ConfigLayer[];
  /** Layers that could not be parsed (skipped, reported, never overwritten). */
  broken: ConfigLayer[];
}

/** Objects merge deeply; arrays and scalars replace. Returns a new object. */
export function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (key === "__proto__" || key === "constructor" || key === "prototype") continue;
    const prev = out[key];
    out[key] =
      isPlainObject(prev) && isPlainObject(value) ? deepMerge(prev, value) : value;
  }
  return out;
}

/** True for `{...}` values (not arrays, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Loads every config layer in order (user, legacy, claude, project, local). */
export async function loadConfigLayers(ws: Workspace): Promise<ConfigLayer[]> {
  const json = jsonLayerFiles(ws);
  const [jsonLayers, project, local] = await Promise.all([
    Promise.all(json.map((l) => readJsonLayer(l.source, l.file))),
    loadProjectLayer(ws),
    readJsonLayer("local", localConfigFile(ws)),
  ]);
  return [...jsonLayers, project, local].filter((l): l is ConfigLayer => l !== undefined);
}

/** Layers keel owns: a broken one could hide deny rules, so it stops the command instead of being skipped. */
const OWN_LAYERS: ReadonlySet<ConfigLayer["source"]> = new Set(["user", "project", "local"]);

/**
 * Loads and merges the config. An unparseable keel config file (user, project, local) throws a
 * ManifestError naming it (failing closed: its deny rules must not silently vanish); unparseable
 * files of other tools (legacy, Claude settings) are skipped and returned in `broken`.
 * A merged value that violates keel's schema throws a ManifestError naming the field and file.
 */
export async function loadConfig(ws: Workspace): Promise<LoadedConfig> {
  const all = await loadConfigLayers(ws);
  const ownBroken = all.find((l) => !l.value && OWN_LAYERS.has(l.source));
  if (ownBroken)
    throw new ManifestError(
      `Config file ${ownBroken.file} cannot be parsed (${ownBroken.error}). keel stops rather than run without its rules: fix the file (keel never rewrites it), then retry.`,
      ownBroken.file,
    );
  const layers = all.filter((l) => l.value);
  const broken = all.filter((l) => !l.value);
  let merged: Record<string, unknown> = {};
  for (const layer of layers) merged = deepMerge(merged, layer.value!);
  const parsed = KeelConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = innermostIssue(parsed.error.issues[0]!);
    const field = issue.path.join(".");
    const culprit = [...layers].reverse().find((l) => hasPath(l.value!, issue.path as PropertyKey[]));
    throw new ManifestError(
      `Invalid config field "${field}"${culprit ? ` in ${culprit.file}` : ""}: ${issue.message}.`,
      culprit?.file,
      field,
    );
  }
  return { config: parsed.data, layers, broken };
}

/** A config issue as zod reports it; union failures carry each branch's issues. */
interface ConfigIssue {
  path: PropertyKey[];
  message: string;
  code?: string;
  errors?: ConfigIssue[][];
}

/**
 * For a union failure (e.g. `model` is a string or an object), the issue of the branch that got
 * furthest into the value, with its full path: `model.name: expected string` instead of "Invalid input".
 */
function innermostIssue(issue: ConfigIssue, prefix: PropertyKey[] = []): ConfigIssue {
  const path = [...prefix, ...issue.path];
  if (issue.code !== "invalid_union" || !issue.errors?.length) return { ...issue, path };
  const candidates = issue.errors.flat().map((i) => innermostIssue(i, path));
  const deepest = candidates.sort((a, b) => b.path.length - a.path.length)[0];
  return deepest && deepest.path.length > path.length ? deepest : { ...issue, path };
}

function hasPath(obj: Record<string, unknown>, path: PropertyKey[]): boolean {
  let cur: unknown = obj;
  for (const key of path) {
    if (!isPlainObject(cur) && !Array.isArray(cur)) return false;
    cur = (cur as Record<PropertyKey, unknown>)[key];
    if (cur === undefined) return false;
  }
  return true;
}
