import type { CosmiconfigResult, Loader, Loaders } from "cosmiconfig";
import { basename } from "node:path";

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
 * and merge it into the project layer, whose values `config_list` shows the model.
 */
function withoutImports(load: Loader): Loader {
  return async (filepath, content) => {
    const value: unknown = await load(filepath, content);
    const own = basename(filepath) === "package.json" && isObject(value) ? value.keel : value;
    if (isObject(own) && Object.hasOwn(own, "$import"))
      throw new Error(
        `"$import" is not supported: keel reads its project config from this file alone, never from files it names. Move the settings you need into this file.`,
      );
    return value;
  };
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
    ".json": withoutImports(defaultLoaders[".json"]),
    ".yaml": withoutImports(defaultLoaders[".yaml"]),
    ".yml": withoutImports(defaultLoaders[".yml"]),
    noExt: withoutImports(defaultLoaders.noExt),
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
