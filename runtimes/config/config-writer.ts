import { lstatSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import {
  type ConfigLayer,
  type ConfigSourceName,
  deepMerge,
  errorMessage,
  isPlainObject,
  keelConfigSchema,
  localConfigFile,
  parseJsonText,
  StateError,
  ToolError,
  withFileLock,
  withoutBom,
  type Workspace,
  writeJsonState,
  writeTextAtomic,
} from "../../core/index.js";
import { CONFIG_SOURCES, type WritableSource } from "./config-source-lists.js";
import { ConfigView } from "./config-view.js";
import { jsonTextWithValue } from "./json-text-edit.js";
import { formatKeyPath, setAt } from "./key-path.js";

/** What `config_set` did. */
export interface ConfigSetResult {
  key: string;
  value: unknown;
  previous: unknown;
  source: WritableSource;
  file: string;
  created: boolean;
  /** A later layer that still overrides this key, if any. */
  overriddenBy?: { source: ConfigSourceName; file: string };
}

/**
 * Sets one key in the file of `source`, under that file's lock, written atomically. Refuses files
 * it cannot parse, YAML config files (keel never loads JS/TS ones), links, and values that break keel's config schema
 * (checked both in the file and in the merged view the host will load next time).
 */
export async function setConfigValue(ws: Workspace, keys: string[], value: unknown, source: WritableSource, trusted: boolean): Promise<ConfigSetResult> {
  const before = await ConfigView.load(ws, trusted);
  const target = targetFile(ws, source, before);
  const key = formatKeyPath(keys);
  // A config file planted as a link (keel.config.json → ~/.keel/config.json) is never written through.
  if (lstatSync(target.file, { throwIfNoEntry: false })?.isSymbolicLink())
    throw new ToolError(
      `${target.file} is a symbolic link; keel does not write config through links. Replace it with a regular file, or write to another source.`,
      "precondition_failed",
      null,
      { file: target.file },
    );
  try {
    return await withFileLock(target.file, async (held) => {
      const { doc, created, text, bom } = await readTarget(target.file);
      const section = target.packageJson ? (doc.keel ?? {}) : doc;
      if (!isPlainObject(section))
        throw new ToolError(`${target.file}: the "keel" field must be an object to write into it. Fix it by hand first.`, "precondition_failed");
      const previous = keys.reduce<unknown>((cur, k) => (isPlainObject(cur) || Array.isArray(cur) ? (cur as Record<string, unknown>)[k] : undefined), section);
      const updated = setAt(section, keys, value, target.file);
      await validate(updated, target.file, key, value);
      await validate(mergedWith((await ConfigView.load(ws, trusted)).layers, source, target.file, updated), "the merged config", key, value);
      const whole = target.packageJson ? { ...doc, keel: updated } : updated;
      held(); // taken over by another process meanwhile: not written over what it wrote
      // An existing file keeps its formatting: only the value changes (a package.json is not reformatted).
      if (text === undefined) await writeJsonState(target.file, whole);
      else await writeTextAtomic(target.file, bom + (await jsonTextWithValue(text, target.packageJson ? ["keel", ...keys] : keys, value, whole)));
      const after = await ConfigView.load(ws, trusted);
      const origin = after.origin(keys);
      const overriddenBy = origin && origin.file !== target.file ? { source: origin.source, file: origin.file } : undefined;
      return { key, value, previous, source, file: target.file, created, ...(overriddenBy ? { overriddenBy } : {}) };
    });
  } catch (error) {
    if (error instanceof StateError) throw new ToolError(error.message, "execution_failed", null, { file: target.file });
    throw error;
  }
}

/** The merged config the host would load after replacing (or adding) the target file's content. */
function mergedWith(layers: ConfigLayer[], source: WritableSource, file: string, updated: Record<string, unknown>): Record<string, unknown> {
  const values = layers.filter((l) => l.value && l.file !== file).map((l) => ({ source: l.source, value: l.value! }));
  const rank = (s: ConfigSourceName) => CONFIG_SOURCES.indexOf(s);
  let at = 0;
  while (at < values.length && rank(values[at]!.source) <= rank(source)) at++;
  values.splice(at, 0, { source, value: updated });
  return values.reduce<Record<string, unknown>>((acc, v) => deepMerge(acc, v.value), {});
}

function targetFile(ws: Workspace, source: WritableSource, view: ConfigView): { file: string; packageJson: boolean } {
  if (source === "local") return { file: localConfigFile(ws), packageJson: false };
  if (source === "user") return { file: join(ws.keelHome, "config.json"), packageJson: false };
  const found = view.layers.find((l) => l.source === "project");
  if (!found) return { file: join(ws.root, "keel.config.json"), packageJson: false };
  const ext = extname(found.file).toLowerCase();
  if (ext === ".yaml" || ext === ".yml")
    throw new ToolError(
      `The project config ${found.file} is YAML; keel writes only JSON config files. Edit it by hand, or write to source "local".`,
      "precondition_failed",
      null,
      { file: found.file },
    );
  if (found.error) throw unparseable(found.file, found.error);
  return { file: found.file, packageJson: basename(found.file) === "package.json" };
}

/**
 * The file's document, and its text when it has any (undefined: missing or blank, written whole), without a leading
 * byte order mark: `bom` is that mark (or ""), which the rewritten file keeps.
 */
async function readTarget(file: string): Promise<{ doc: Record<string, unknown>; created: boolean; text?: string; bom: string }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { doc: {}, created: true, bom: "" };
    throw new ToolError(`Cannot read ${file}: ${errorMessage(error)}.`, "execution_failed", null, { file });
  }
  const body = withoutBom(text);
  const bom = text.slice(0, text.length - body.length);
  text = body;
  if (text.trim() === "") return { doc: {}, created: false, bom: "" };
  let doc: unknown;
  try {
    doc = parseJsonText(text);
  } catch (error) {
    throw unparseable(file, `not valid JSON (${errorMessage(error)})`);
  }
  if (!isPlainObject(doc)) throw unparseable(file, "the top level is not a JSON object");
  return { doc, created: false, text, bom };
}

function unparseable(file: string, why: string): ToolError {
  return new ToolError(
    `Refusing to write ${file}: it cannot be parsed (${why}). keel left it untouched; fix it by hand, or write to another source.`,
    "precondition_failed",
    null,
    { file },
  );
}

async function validate(config: Record<string, unknown>, where: string, key: string, value: unknown): Promise<void> {
  const parsed = (await keelConfigSchema()).safeParse(config);
  if (parsed.success) return;
  const issue = parsed.error.issues[0]!;
  const field = formatKeyPath(issue.path.map(String));
  throw new ToolError(
    `Refusing to set ${key} = ${JSON.stringify(value)}: ${where} would be invalid at "${field}" (${issue.message}).${hint(field)} Nothing was written.`,
    "schema_invalid",
  );
}

function hint(field: string): string {
  if (/^permissions\.(allow|ask|deny)/.test(field))
    return ` Permission rules are a list of strings like "bash(git status*)", e.g. config_set permissions.deny ["bash(rm *)"].`;
  if (field.startsWith("mcp.elicitation")) return ` Use "decline", "cancel" or "ask".`;
  return "";
}
