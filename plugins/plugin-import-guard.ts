import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { MessagePort } from "node:worker_threads";
import { errorMessage, MAX_DIGEST_BYTES, realOrSelf } from "../core/index.js";
import { PLUGIN_IMPORT_HOOKS_SOURCE } from "./plugin-import-hooks-source.js";

/** What one pinned workspace code plugin may import (see plugin-import-hooks-source.ts). */
export interface PluginImportPolicy {
  /** The plugin's name, for refusals. */
  name: string;
  /** The plugin folder's real path. */
  folder: string;
  /** Each pinned file's `sha256:` digest, by its path relative to `folder` (`/`-separated), as `pluginFolderDigest` computed it at start. */
  files: ReadonlyMap<string, string>;
  /** The workspace root (as given and its real path): nothing under it but the pinned files may be imported. */
  workspaceRoot: string;
}

/** The hooks' per-process handle (see `guard`). */
interface GuardHandle {
  port: MessagePort;
  lastId: number;
  waiting: Map<number, () => void>;
}

/** Where the handle lives: one per process, shared by every host and every copy of keel's code in it (tsc output, bundle). */
const HANDLE = Symbol.for("keel.pluginImportGuard");
/** How long keel waits for the hooks thread to take a policy before it refuses the plugin. */
const ACK_TIMEOUT_MS = 10_000;

/**
 * The URL to import a pinned workspace code plugin's entry `file` with, once the import hooks know its
 * `policy`: every module it imports is then checked (plugin-import-hooks-source.ts), so a refused file
 * fails the `import()` with an error naming the plugin, the file and the fix. Throws an Error saying
 * why when the hooks cannot be registered (Node before 20.6) or do not answer; the caller reports it.
 */
export async function guardedImportUrl(policy: PluginImportPolicy, file: string): Promise<string> {
  const handle = await guard();
  const id = ++handle.lastId;
  const wire = {
    ...policy,
    workspaceRoots: [...new Set([policy.workspaceRoot, realOrSelf(policy.workspaceRoot)])],
    keelDist: keelDist(),
    maxBytes: MAX_DIGEST_BYTES,
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      handle.waiting.delete(id);
      reject(new Error(`keel's import checks did not answer within ${ACK_TIMEOUT_MS} ms`));
    }, ACK_TIMEOUT_MS);
    handle.waiting.set(id, () => {
      clearTimeout(timer);
      resolve();
    });
    // Held open until the hooks thread answers (an unreferenced port would let the process exit first).
    handle.port.ref();
    handle.port.postMessage({ id, policy: wire });
  }).finally(() => {
    if (handle.waiting.size === 0) handle.port.unref();
  });
  return `${pathToFileURL(file).href}?keel-plugin=${id}`;
}

/**
 * Registers the import hooks once per process and returns their handle. This is the one piece of
 * process-wide state keel keeps outside a host, because what it stands for is process-wide: Node's
 * module hooks cannot be unregistered, and registering them again would chain a second hooks module
 * (each host of a process — tests run many — would add one). Kept on `globalThis` under a
 * `Symbol.for` key, so a second copy of this module (the CLI bundle and the library in one process)
 * finds it too.
 */
async function guard(): Promise<GuardHandle> {
  const global = globalThis as { [HANDLE]?: Promise<GuardHandle> };
  return (global[HANDLE] ??= register().catch((error: unknown) => {
    delete global[HANDLE];
    throw error;
  }));
}

async function register(): Promise<GuardHandle> {
  const [{ register: registerHooks }, { MessageChannel }] = await Promise.all([import("node:module"), import("node:worker_threads")]);
  if (typeof registerHooks !== "function")
    throw new Error(
      `this Node.js (${process.version}) cannot check what a workspace code plugin imports (module.register needs Node 20.6 or later); upgrade Node, or install the plugin at user level ($KEEL_HOME/plugins/)`,
    );
  const { port1, port2 } = new MessageChannel();
  const handle: GuardHandle = { port: port1, lastId: 0, waiting: new Map() };
  port1.on("message", (id: number) => {
    const done = handle.waiting.get(id);
    handle.waiting.delete(id);
    done?.();
  });
  port1.unref();
  try {
    registerHooks(`data:text/javascript,${encodeURIComponent(PLUGIN_IMPORT_HOOKS_SOURCE)}`, {
      data: { port: port2 },
      transferList: [port2],
    });
  } catch (error) {
    throw new Error(`keel's import checks could not be registered (${errorMessage(error)})`, { cause: error });
  }
  return handle;
}

/**
 * The real path of the running keel's `dist/` folder (the nearest folder above this module holding a
 * package.json, then `dist/`): a plugin importing "keel" gets the code keel already runs, untainted.
 */
function keelDist(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return realOrSelf(join(dir, "dist"));
    if (dirname(dir) === dir) return "";
  }
}
