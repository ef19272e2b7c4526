import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { inside } from "../core/index.js";
import type { LoadedPlugin } from "../manifests/plugin/load-plugins.js";
import type { CodePluginApply } from "./code-plugin-api.js";

/** True for Node's "module not found" errors (an ES import, or `require` in a CommonJS file). */
export function notFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}

/** The plugin's module path, symlinks resolved, when it is a file inside the plugin folder; else reports why not. */
export function moduleFile(plugin: LoadedPlugin, main: string, fail: (message: string) => void): string | undefined {
  const name = plugin.manifest.name;
  let root: string;
  let file: string;
  try {
    root = realpathSync.native(plugin.root);
    file = realpathSync.native(resolve(plugin.root, main));
  } catch {
    fail(`Plugin ${name}: main "${main}" does not exist in ${plugin.root}; the code module was not loaded.`);
    return undefined;
  }
  if (!inside(root, file) || file === root) {
    fail(`Plugin ${name}: main "${main}" resolves to ${file}, outside the plugin folder ${root} (symlinks are followed); the code module was not loaded.`);
    return undefined;
  }
  if (!statSync(file).isFile()) {
    fail(`Plugin ${name}: main "${main}" is not a file; the code module was not loaded.`);
    return undefined;
  }
  return file;
}

/** `apply` as the module exports it: named, the default export's `apply`, or the default export itself. */
export function applyOf(mod: Record<string, unknown>): CodePluginApply | undefined {
  const candidates = [mod.apply, (mod.default as { apply?: unknown } | undefined)?.apply, mod.default];
  return candidates.find((c): c is CodePluginApply => typeof c === "function");
}
