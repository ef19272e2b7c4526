import type { CosmiconfigResult, Loader, Loaders } from "cosmiconfig";
import { basename } from "node:path";
import { parseJsonText } from "../json-text.js";

/** The part of cosmiconfig's explorer keel uses. */
export interface ProjectExplorer {
  search(from: string): Promise<CosmiconfigResult>;
}

/** The options cosmiconfig's `Explorer` takes once `cosmiconfig()` has merged them (its internal `InternalOptions`). */
interface ExplorerOptions {
  moduleName: string;
  searchPlaces: string[];
  loaders: Loaders;
  ignoreEmptySearchPlaces: boolean;
  cache: boolean;
  transform: (result: CosmiconfigResult) => CosmiconfigResult;
  metaConfigFilePath: null;
  mergeImportArrays: boolean;
  mergeSearchPlaces: boolean;
  searchStrategy: "none";
}

/** A cosmiconfig loader for extensions keel never executes (defence in depth: they are not in the search places either). */
function refuseCode(filepath: string): never {
  throw new Error(`${filepath} is code; keel never executes configuration. Move the settings into keel.config.json or keel.config.yaml.`);
}

/**
 * A data loader that refuses cosmiconfig's `$import` key (in `package.json`, under `keel`): cosmiconfig
 * would read each file it names, anywhere on the machine (`"$import": "../../home/me/.config/gh/hosts.yml"`),
 * and merge it into the project layer, whose values `config_list` shows the model. With `yaml`, it also
 * refuses a file whose aliases (`*name`) expand it far beyond its own size (`a1: [*a0, *a0, …]`, or a long
 * string repeated: a few bytes each that expand to more than memory holds once keel lists or merges them).
 */
function dataLoader(load: Loader, yaml: boolean): Loader {
  return async (filepath, content) => {
    const value: unknown = await load(filepath, content);
    const own = basename(filepath) === "package.json" && isObject(value) ? value.keel : value;
    if (isObject(own) && Object.hasOwn(own, "$import"))
      throw new Error(
        `"$import" is not supported: keel reads its project config from this file alone, never from files it names. Move the settings you need into this file.`,
      );
    // Without aliases a value is about as large as its text; 2x and 1 MB of slack spare every file written out.
    const limit = 2 * content.length + 1024 * 1024;
    if (yaml && expandedSize(value, new Map(), limit) > limit)
      throw new Error(`its YAML aliases (*name) expand it to more than ${limit} characters. Write the values out, or repeat fewer of them.`);
    return value;
  };
}

/**
 * About how many characters `value` takes written out, every aliased value counted each time it
 * appears (each shared list or map is sized once, then reused); stops counting past `limit`.
 */
function expandedSize(value: unknown, memo: Map<object, number>, limit: number): number {
  if (typeof value === "string") return value.length + 2;
  if (!isObject(value)) return String(value).length;
  const known = memo.get(value);
  if (known !== undefined) return known;
  memo.set(value, 2); // a cycle (`&a [*a]`) counts once
  let size = 2;
  for (const [key, child] of Object.entries(value)) {
    size += key.length + 2 + expandedSize(child, memo, limit);
    if (size > limit) break;
  }
  memo.set(value, size);
  return size;
}

/**
 * Strict JSON for `.json` config files, with a plain one-line error: cosmiconfig's own JSON loader
 * (parse-json) puts a code frame in its message twice, in ANSI colours wherever `CI` is set, which then
 * reached `--json` output and CI logs as escape codes. Throws `JSON Error in FILE: … (line L, column C)`.
 */
function loadJson(filepath: string, written: string): unknown {
  // A leading byte order mark is skipped (and not counted in the line and column, as an editor does not show it).
  try {
    return parseJsonText(written);
  } catch (error) {
    throw new Error(`JSON Error in ${filepath}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/**
 * cosmiconfig's explorer for module `keel`, searching exactly `searchPlaces`, one folder at a time, with JSON and YAML loaders only.
 *
 * Built directly rather than through `cosmiconfig()`: that factory first reads cosmiconfig's own "meta config"
 * (`package.json#cosmiconfig`, `package.yaml`, `.config/config.{json,yaml,yml}`) from the process's working directory and
 * lets it add search places and options. A repository could then point keel's config search at any file outside the
 * workspace (`"searchPlaces": ["../../home/me/secrets.json"]`), whose content `config_list` would show the model. keel's
 * config search is keel's: no file in the workspace decides where it looks, nor (`$import`) what else it reads.
 */
export async function projectExplorer(searchPlaces: readonly string[]): Promise<ProjectExplorer> {
  const { defaultLoaders } = await import("cosmiconfig");
  // `Explorer` is exported by cosmiconfig's dist but not typed publicly; the lockfile pins the version, and the
  // hostile-config tests fail if its shape changes.
  const { Explorer } = (await import("cosmiconfig/dist/Explorer.js")) as unknown as {
    Explorer: new (options: ExplorerOptions) => ProjectExplorer;
  };
  const loaders: Loaders = {
    ".json": dataLoader(loadJson, false),
    ".yaml": dataLoader(defaultLoaders[".yaml"], true),
    ".yml": dataLoader(defaultLoaders[".yml"], true),
    noExt: dataLoader(defaultLoaders.noExt, true),
    ".js": refuseCode,
    ".cjs": refuseCode,
    ".mjs": refuseCode,
    ".ts": refuseCode,
  };
  return new Explorer({
    moduleName: "keel",
    searchPlaces: [...searchPlaces],
    loaders,
    ignoreEmptySearchPlaces: true,
    cache: false,
    transform: (result) => result,
    metaConfigFilePath: null,
    mergeImportArrays: true,
    mergeSearchPlaces: true,
    // Only the folder searched: cosmiconfig's "global" strategy would also read ~/.config.
    searchStrategy: "none",
  });
}
