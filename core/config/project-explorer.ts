import type { CosmiconfigResult, Loaders } from "cosmiconfig";

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
 * cosmiconfig's explorer for module `keel`, searching exactly `searchPlaces`, one folder at a time, with JSON and YAML loaders only.
 *
 * Built directly rather than through `cosmiconfig()`: that factory first reads cosmiconfig's own "meta config"
 * (`package.json#cosmiconfig`, `package.yaml`, `.config/config.{json,yaml,yml}`) from the process's working directory and
 * lets it add search places and options. A repository could then point keel's config search at any file outside the
 * workspace (`"searchPlaces": ["../../home/me/secrets.json"]`), whose content `config_list` would show the model. keel's
 * config search is keel's: no file in the workspace decides where it looks.
 */
export async function projectExplorer(searchPlaces: readonly string[]): Promise<ProjectExplorer> {
  const { defaultLoaders } = await import("cosmiconfig");
  // `Explorer` is exported by cosmiconfig's dist but not typed publicly; the lockfile pins the version, and the
  // hostile-config tests fail if its shape changes.
  const { Explorer } = (await import("cosmiconfig/dist/Explorer.js")) as unknown as {
    Explorer: new (options: ExplorerOptions) => ProjectExplorer;
  };
  const loaders: Loaders = {
    ".json": defaultLoaders[".json"],
    ".yaml": defaultLoaders[".yaml"],
    ".yml": defaultLoaders[".yml"],
    noExt: defaultLoaders.noExt,
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
