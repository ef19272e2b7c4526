/**
 * The source of the module customization hooks (`module.register`) that check what a pinned workspace
 * code plugin imports, registered from a `data:` URL (see plugin-import-guard.ts). A string, not a
 * file: the hooks module must load the same way from tsc's output (dist/plugins/), from the CLI bundle
 * (dist/cli/chunks/) and from the package's `exports`, where no file path is the same; a `data:`
 * module may import `node:` built-ins and nothing else, so it must stand alone.
 *
 * Contract (the tests exercise it through real `keel` processes): a module URL carrying the query
 * parameter `keel-plugin=<id>` is tainted with the policy `<id>` (sent over the port given to
 * `initialize`: `{id, policy}`, acknowledged by posting `id` back). What a tainted module imports is
 * tainted too. For a tainted file: inside the plugin folder (not under `node_modules/` or `.git/`) it
 * loads only when the SHA-256 of the bytes returned as its source is the one pinned at start; elsewhere
 * in the workspace or in the folder's `node_modules/`/`.git/` it is refused; outside the workspace it
 * loads (CommonJS with its source read here, so its `require` calls pass through these hooks too); files
 * of keel's own `dist/` load untainted, as keel runs them. `node:module` is refused (its `createRequire`
 * loads CommonJS past the hooks), as is any URL but `file:` and `node:`. A refusal is an Error naming
 * the plugin, the file, why, and what to do. Untainted URLs go straight to the next hook.
 */
export const PLUGIN_IMPORT_HOOKS_SOURCE = String.raw`
import { closeSync, fstatSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const PARAM = "keel-plugin";
const FORMATS = new Set(["module", "commonjs", "json"]);
const policies = new Map();

export function initialize(data) {
  data.port.on("message", (message) => {
    policies.set(String(message.id), message.policy);
    data.port.postMessage(message.id);
  });
  data.port.unref();
}

function taintOf(url) {
  if (typeof url !== "string" || !url.includes(PARAM + "=")) return undefined;
  try {
    return new URL(url).searchParams.get(PARAM) ?? undefined;
  } catch {
    return undefined;
  }
}

function withTaint(url, id) {
  const u = new URL(url);
  u.searchParams.set(PARAM, id);
  return u.href;
}

function withoutTaint(url) {
  const u = new URL(url);
  u.searchParams.delete(PARAM);
  return u.href;
}

function inside(dir, path) {
  const rel = relative(dir, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(".." + sep) && !isAbsolute(rel));
}

function realOrSelf(path) {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

function shown(policy, path) {
  return inside(policy.workspaceRoot, path) ? relative(policy.workspaceRoot, path) || path : path;
}

const ELSEWHERE_FIX =
  "A workspace code plugin may import the files of its own folder that keel trust pinned, Node's built-in modules and code outside the workspace. Vendor it into the plugin folder (bundle it), or install the plugin at user level ($KEEL_HOME/plugins/).";

function refusal(policy, file, why, fix = ELSEWHERE_FIX) {
  const name = policy ? policy.name : "(unknown)";
  const error = new Error("keel refused to import " + file + " for plugin " + name + ": " + why + ". " + fix);
  error.code = "ERR_KEEL_PLUGIN_IMPORT";
  return error;
}

/** Why a tainted module may not come from path (absolute), or undefined when only its bytes decide (inside the folder) or it is outside the workspace. */
function placeProblem(policy, path) {
  if (inside(policy.folder, path)) {
    const parts = relative(policy.folder, path).split(sep);
    if (parts.includes("node_modules")) return "it is in the plugin folder's node_modules/, which keel trust does not pin and a sandboxed command may write";
    if (parts.includes(".git")) return "it is in the plugin folder's .git/, which keel trust does not pin";
    return undefined;
  }
  for (const root of policy.workspaceRoots)
    if (inside(root, path)) return "it is in the workspace outside the plugin folder, which keel trust does not pin and a sandboxed command may write";
  return undefined;
}

/** The path a bare or relative specifier names before symlinks are followed (for a bare one, the first node_modules/<name> folder Node's search finds), or undefined. */
function namedPath(specifier, parentURL) {
  if (!parentURL || !parentURL.startsWith("file:")) return undefined;
  if (specifier.startsWith("./") || specifier.startsWith("../") || specifier.startsWith("/") || specifier.startsWith("file:"))
    return specifier.startsWith("file:") ? fileURLToPath(new URL(specifier)) : fileURLToPath(new URL(specifier, parentURL));
  if (specifier.startsWith("#") || /^[a-z][a-z0-9+.-]*:/i.test(specifier)) return undefined;
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  for (let dir = dirname(fileURLToPath(parentURL)); ; dir = dirname(dir)) {
    if (basename(dir) !== "node_modules") {
      const candidate = join(dir, "node_modules", name);
      try {
        if (statSync(candidate).isDirectory()) return candidate;
      } catch {}
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** The file's bytes, read once and bounded, or why not. */
function readBounded(path, max) {
  let fd;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    return "it cannot be read (" + (error.code ?? "error") + ")";
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return "it is not a regular file";
    if (st.size > max) return "it is larger than " + max + " bytes";
    const buffer = Buffer.alloc(st.size + 1);
    let total = 0;
    for (let n; (n = readSync(fd, buffer, total, buffer.length - total, null)) > 0; ) {
      total += n;
      if (total > st.size) return "it changed while keel read it";
    }
    return buffer.subarray(0, total);
  } catch (error) {
    return "it cannot be read (" + (error.code ?? "error") + ")";
  } finally {
    closeSync(fd);
  }
}

function policyFor(id, url) {
  const policy = policies.get(id);
  if (!policy) throw refusal(undefined, url, "keel holds no import policy for it (keel-plugin=" + id + ")", "This is a bug in keel: report it.");
  return policy;
}

const NODE_MODULE_WHY =
  "node:module is refused in a workspace code plugin (its createRequire loads CommonJS past keel's import checks)";
const NODE_MODULE_FIX = "Import the CommonJS files with import statements instead (Node loads them through keel's checks), or install the plugin at user level ($KEEL_HOME/plugins/).";

export async function resolve(specifier, context, nextResolve) {
  const id = taintOf(context.parentURL) ?? taintOf(specifier);
  if (id === undefined) return nextResolve(specifier, context);
  const policy = policyFor(id, specifier);
  if (specifier === "module" || specifier === "node:module") throw refusal(policy, specifier, NODE_MODULE_WHY, NODE_MODULE_FIX);
  const named = namedPath(specifier, context.parentURL);
  const result = await nextResolve(specifier, context);
  if (result.url === "node:module") throw refusal(policy, specifier, NODE_MODULE_WHY, NODE_MODULE_FIX);
  if (result.url.startsWith("node:")) return result;
  if (!result.url.startsWith("file:"))
    throw refusal(policy, result.url.slice(0, 80), "keel checks only files (file: URLs) and Node's built-in modules");
  const real = realOrSelf(fileURLToPath(result.url));
  // keel's own code, as keel runs it: nothing a plugin could change that keel does not run anyway.
  if (policy.keelDist && inside(policy.keelDist, real)) return { ...result, url: withoutTaint(result.url) };
  const problem = named === undefined ? undefined : placeProblem(policy, named);
  if (problem) throw refusal(policy, shown(policy, named), problem);
  return { ...result, url: withTaint(result.url, id) };
}

export async function load(url, context, nextLoad) {
  const id = taintOf(url);
  if (id === undefined || !url.startsWith("file:")) return nextLoad(url, context);
  const policy = policyFor(id, url);
  const path = fileURLToPath(url);
  const real = realOrSelf(path);
  const problem = placeProblem(policy, real);
  if (problem) throw refusal(policy, shown(policy, real), problem);
  if (inside(policy.folder, real)) {
    const format = context.format;
    if (!FORMATS.has(format))
      throw refusal(policy, shown(policy, real), "keel cannot tell how Node would load it (format " + format + ")", "Name the file .mjs, .cjs or .json.");
    const bytes = readBounded(real, policy.maxBytes);
    if (typeof bytes === "string") throw refusal(policy, shown(policy, real), bytes, "Fix or remove the file, and run keel trust again.");
    const pinned = policy.files.get(relative(policy.folder, real).split(sep).join("/"));
    if (pinned === undefined)
      throw refusal(policy, shown(policy, real), "keel trust did not pin it (it was not in the plugin folder when keel started)", "Run keel again, and keel trust to review the plugin.");
    if ("sha256:" + createHash("sha256").update(bytes).digest("hex") !== pinned)
      throw refusal(policy, shown(policy, real), "it changed since keel checked the plugin folder at start (it is not what keel trust pinned)", "Run keel again, and keel trust to review the change.");
    return { format, source: bytes, shortCircuit: true };
  }
  if (context.format === "commonjs") {
    // Returning its source makes Node run its require() calls through these hooks.
    const bytes = readBounded(real, policy.maxBytes);
    if (typeof bytes === "string") throw refusal(policy, real, bytes);
    return { format: "commonjs", source: bytes, shortCircuit: true };
  }
  return nextLoad(url, context);
}
//# sourceURL=keel-plugin-import-hooks.mjs
`;
