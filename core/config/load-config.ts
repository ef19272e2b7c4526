import { inToolProcess } from "../trust-hint.js";
import { statSync } from "node:fs";
import { ManifestError } from "../errors.js";
import type { Workspace } from "../workspace.js";
import type { KeelConfig, KeelConfigSchema } from "./config-schema.js";
import type { Diagnostic } from "../diagnostics.js";
import type { contribution, mergeLayers, MergedLayers, wideningSettings } from "./merge-layers.js";
import type { TrustItem } from "../trust.js";
import {
  claudeScope,
  codeConfigFiles,
  type ConfigLayer,
  type TrustLevel,
  jsonLayerFiles,
  loadProjectLayer,
  localConfigFile,
  readJsonLayer,
} from "./config-sources.js";
import { checkLocalRules, recordLocalRules } from "./local-rules.js";

/** The merged config plus the layers it came from. */
export interface LoadedConfig {
  config: KeelConfig;
  layers: ConfigLayer[];
  /** Layers that could not be parsed (skipped, reported, never overwritten). */
  broken: ConfigLayer[];
  /** For each allow rule, the most trusted level that contributed it. */
  allowLevels: ReadonlyMap<string, readonly TrustLevel[]>;
  /** Ignored keys of an untrusted workspace, translated or untranslatable rules, unknown keys, code config files. */
  diagnostics: Diagnostic[];
  /** What the workspace's config sets that widens, as `keel trust` approves it (see `wideningSettings`). */
  trustItem?: TrustItem;
  /**
   * Diagnostics every command shows the user as it starts (the CLI on stderr), besides listing them:
   * deny and ask rules gone from a local config file, which keel holds in force (see checkLocalRules).
   */
  notices?: Diagnostic[];
}

export { deepMerge } from "./deep-merge.js";
import { isPlainObject } from "./plain-object.js";
export { isPlainObject };

/**
 * keel config's zod schema, loaded on first use: loading zod is a large part of start-up, and a
 * workspace without config files has nothing to validate.
 */
export async function keelConfigSchema(): Promise<typeof KeelConfigSchema> {
  return (await import("./config-schema.js")).KeelConfigSchema;
}

/**
 * What is wrong with `model` by the rules a config file's `model` is checked with (the config schema, loaded here),
 * as its field and zod's message (`{ field: "model.baseUrl", message: "Invalid input: expected string, received number" }`),
 * or undefined when a config file could hold it. For a program's `createHost({ model })`, which no config file carries.
 */
export async function modelConfigProblem(model: unknown): Promise<{ field: string; message: string } | undefined> {
  const parsed = (await keelConfigSchema()).safeParse({ model });
  if (parsed.success) return undefined;
  const issue = innermostIssue(parsed.error.issues[0]!);
  return { field: issue.path.join("."), message: issue.message };
}

/** The layer merger and its helpers (merge-layers.ts), as `layerMerging()` returns them. */
export interface LayerMerging {
  mergeLayers: typeof mergeLayers;
  contribution: typeof contribution;
  wideningSettings: typeof wideningSettings;
}

/**
 * The layer merger (with Claude rule translation and key checks), loaded on first use: a workspace
 * without config files has no layer to merge.
 */
export async function layerMerging(): Promise<LayerMerging> {
  const { mergeLayers, contribution, wideningSettings } = await import("./merge-layers.js");
  return { mergeLayers, contribution, wideningSettings };
}

/** Loads every config layer in order (user, legacy, claude: the root's then each folder's down to the working directory, project, local). */
export async function loadConfigLayers(ws: Workspace): Promise<ConfigLayer[]> {
  const json = jsonLayerFiles(ws);
  const [jsonLayers, project, local] = await Promise.all([
    // The workspace's layers are read only from files inside it (the user's own layer may be a link anywhere).
    Promise.all(
      json.map(async (l) => {
        const layer = await readJsonLayer(l.source, l.file, l.source === "user" ? undefined : ws.root);
        const scope = l.source === "claude" ? claudeScope(l.file, ws.root) : undefined;
        return layer && scope !== undefined ? { ...layer, scope } : layer;
      }),
    ),
    loadProjectLayer(ws),
    readJsonLayer("local", localConfigFile(ws), ws.root),
  ]);
  return [...jsonLayers, project, local].filter((l): l is ConfigLayer => l !== undefined);
}

/** Whether `file` is an empty regular file (as keel's sandbox shows the user config), false when it cannot be read. */
function isEmptyFile(file: string): boolean {
  try {
    return statSync(file).size === 0;
  } catch {
    return false;
  }
}

/** Layers keel owns: a broken one could hide deny rules, so it stops the command instead of being skipped. */
const OWN_LAYERS: ReadonlySet<ConfigLayer["source"]> = new Set(["user", "project", "local"]);

/**
 * Loads and merges the config. An unparseable keel config file (user, project, local) throws a
 * ManifestError naming it (failing closed: its deny rules must not silently vanish); unparseable
 * files of other tools (legacy, Claude settings) are skipped and returned in `broken`.
 * A merged value that violates keel's schema throws a ManifestError naming the field and file.
 */
export async function loadConfig(
  ws: Workspace,
  trusted = false,
  approves?: (item: TrustItem) => boolean,
  unpinned = false,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LoadedConfig> {
  const all = await loadConfigLayers(ws);
  const ownBroken = all.find((l) => !l.value && OWN_LAYERS.has(l.source));
  if (ownBroken)
    throw new ManifestError(
      `Config file ${ownBroken.file} cannot be parsed (${ownBroken.error}). keel stops rather than run without its rules: fix the file (keel never rewrites it), then retry.${
        ownBroken.source === "user" && isEmptyFile(ownBroken.file)
          ? " If this keel runs inside keel's sandbox, which hides your config (an empty device there: `Permission denied`), run it outside the sandbox instead."
          : ""
      }`,
      ownBroken.file,
    );
  const layers = all.filter((l) => l.value);
  const broken = all.filter((l) => !l.value);
  // Deny and ask rules gone from your local config files (a `git pull` replaced one) stay in force until you confirm.
  const local = await checkLocalRules(ws, all, env);
  const nothing: MergedLayers = { value: {}, allowLevels: new Map(), diagnostics: [], invalid: [] };
  const merging = layers.length || local.held.length ? await layerMerging() : undefined;
  // A trusted workspace's widening settings apply as `keel trust` approved them; changed since, the config only restricts.
  const trustItem = trusted && merging ? merging.wideningSettings(layers, ws.root) : undefined;
  const held = trustItem !== undefined && approves !== undefined && !approves(trustItem);
  if (held) trusted = false;
  const {
    value: merged,
    allowLevels,
    diagnostics,
    invalid,
    notices: heldBack = [],
  } = merging ? merging.mergeLayers([...layers, ...local.held], trusted, held ? (unpinned ? "unpinned" : "changed") : undefined, inToolProcess(env)) : nothing;
  // Said as every command starts: your rules held for a replaced local file, and widening settings held back since `keel trust`.
  const notices = [...local.diagnostics, ...heldBack];
  const own = invalid.find((i) => OWN_LAYERS.has(i.source));
  if (own) throw new ManifestError(`Invalid config field "${own.path}" in ${own.file}: ${own.message}. Fix the file, then retry.`, own.file, own.path);
  for (const file of codeConfigFiles(ws))
    diagnostics.push({
      severity: "warning",
      source: "config",
      file,
      message: "This config file is code and was not loaded: keel never executes configuration. Move its settings into keel.config.json (or .yaml).",
    });
  // No layer set anything: nothing to validate (the schema has no defaults), so the schema is not loaded.
  if (Object.keys(merged).length === 0) return { config: {}, layers, broken, allowLevels, diagnostics, trustItem, notices };
  const parsed = (await keelConfigSchema()).safeParse(merged);
  if (!parsed.success) {
    const issue = innermostIssue(parsed.error.issues[0]!);
    const field = issue.path.join(".");
    const culprit = [...layers].reverse().find((l) => hasPath(l.value!, issue.path as PropertyKey[]));
    throw new ManifestError(`Invalid config field "${field}"${culprit ? ` in ${culprit.file}` : ""}: ${issue.message}.`, culprit?.file, field);
  }
  // Recorded once the config is known to load: a rule the schema refuses is never held.
  await recordLocalRules(ws, local.grown);
  return { config: parsed.data, layers, broken, allowLevels, diagnostics, trustItem, notices };
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
