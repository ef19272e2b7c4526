import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { MAX_MANIFEST_BYTES, readRegularFile } from "../../core/index.js";

/** The file operations plugin discovery and loading use; injectable for tests and benchmarks. */
export interface PluginFs {
  /** Names of the entries of a directory that are directories; empty when it does not exist. */
  subdirs(dir: string): string[];
  /** True when the path exists and is not a directory (a FIFO or device is then refused by `readText`, with a diagnostic). */
  isFile(path: string): boolean;
  /** True when the path exists. */
  exists(path: string): boolean;
  /** The file's text. Throws when it cannot be read, is not a regular file or is over 1 MiB. */
  readText(path: string): string;
  /** Canonical path (symlinks resolved). Throws when the path does not exist. */
  realpath(path: string): string;
  /** Names of the entries of a directory; empty when it does not exist. */
  list(dir: string): string[];
}

/** The real file system (synchronous: discovery runs once at startup over small files). */
export const nodePluginFs: PluginFs = {
  subdirs(dir) {
    try {
      return readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory() || (e.isSymbolicLink() && isDir(`${dir}/${e.name}`)))
        .map((e) => e.name);
    } catch {
      return [];
    }
  },
  isFile(path) {
    try {
      const st = statSync(path, { throwIfNoEntry: false });
      return st !== undefined && !st.isDirectory();
    } catch {
      return false;
    }
  },
  exists: (path) => existsSync(path),
  readText: (path) => readRegularFile(path, MAX_MANIFEST_BYTES),
  realpath: (path) => realpathSync.native(path),
  list(dir) {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  },
};

function isDir(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}
