import { realpathSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import {
  errorMessage,
  fileDigest,
  inside,
  inToolProcess,
  orTrustOnce,
  TRUST_ONCE,
  MAX_DIGEST_BYTES,
  userItemProblem,
  userItemRefusal,
  yourOwners,
  type Diagnostic,
  type Host,
} from "../core/index.js";
import { PLUGIN_DIAGNOSTIC_SOURCE, type LoadedPlugin } from "../manifests/plugin/load-plugins.js";
import { CODE_PLUGIN_HOOKS, type CodePluginApi, type CodePluginApply, type CodePluginHooks, type CodePluginTool } from "./code-plugin-api.js";
import { codeToolProblem, toToolDefinition } from "./code-plugin-tool.js";
import type { PluginEntry } from "./register-plugin-tools.js";
import { MAX_PLUGIN_BYTES, MAX_PLUGIN_FILES, pluginFolderDigest } from "./plugin-folder-digest.js";
import { APPLY_TIMEOUT_ENV, applyTimeout, withinBound } from "./apply-timeout.js";
import { applyOf, moduleFile, notFound } from "./code-plugin-module.js";
import { PluginImports } from "./import-plugin-module.js";
import { pluginSnapshot, snapshotsDir } from "./plugin-snapshot.js";
import { prunePluginSnapshots } from "./prune-plugin-snapshots.js";
import { reservedNames } from "./reserved-names.js";

const PLUGIN_NAME = "code-plugins";
/** After the manifest plugins' tools (stage 200): declared names go first. */
const REGISTER_STAGE = 210;

/**
 * Runs the code modules plugins name in `main` (`apply(keel)`), for user-level plugins and, in a
 * trusted workspace, workspace plugins; an untrusted workspace's module is never imported (a
 * warning says how to trust). The module must resolve, symlinks followed, inside its plugin
 * folder; a workspace plugin runs only while that folder is as approved (see `pluginFolderDigest`), and
 * with a pinned trust it is imported from keel's copy of exactly the pinned bytes (`pluginSnapshot`:
 * its imports resolve there, never in the workspace). Tools the plugins register are added at `registerTools`. Every failure (refused path,
 * import error, bad export, `apply` throwing, a bad tool, a workspace plugin's tool in a reserved
 * namespace such as `mcp__*` or `task_*`, an `apply` that has not settled within the bound) is a
 * diagnostic naming the file; the host and the other plugins go on. User-level plugins' tools register
 * before workspace ones; their names are returned so workspace manifests cannot take them. Never throws.
 */
export async function applyCodePlugins(host: Host, entries: PluginEntry[]): Promise<CodeToolNames> {
  const tools: { entry: PluginEntry; tool: CodePluginTool; file: string }[] = [];
  const { ms: timeoutMs, problem } = applyTimeout(host.env);
  // Said with each code plugin, whose bound it is (an environment variable: no file to name).
  if (problem) {
    const d: Diagnostic = { severity: "warning", source: PLUGIN_DIAGNOSTIC_SOURCE, message: problem };
    for (const entry of entries.filter((e) => e.plugin.manifest.main !== undefined)) {
      host.diagnostics.add(d);
      entry.record.diagnostics.push(d);
    }
  }
  // Node 20 reports a CommonJS file's error a second time, as an unhandled rejection (see PluginImports).
  const imports = new PluginImports();
  /** The pinned copies this start imports from (kept by the pruning below). */
  const snapshots = new Set<string>();
  try {
    for (const entry of entries) {
      const main = entry.plugin.manifest.main;
      if (main === undefined) continue;
      const report = (severity: Diagnostic["severity"], file: string, message: string) => addDiagnostic(host, entry, severity, file, message);
      const name = entry.plugin.manifest.name;
      if (entry.plugin.level !== "user" && !host.trusted) {
        report(
          "warning",
          entry.plugin.manifestPath,
          `Plugin ${name} names a code module (main: ${main}); code plugins run only from the user level or a trusted workspace, so it was not loaded. Run \`keel trust\`${orTrustOnce(inToolProcess(host.env), TRUST_ONCE.flag)} to run it.`,
        );
        continue;
      }
      const file = moduleFile(entry.plugin, main, (message) => report("error", entry.plugin.manifestPath, message));
      if (!file) continue;
      // Your plugin's code runs as you: not a module file another user owns or may write (or in such a folder).
      const foreign = entry.plugin.level === "user" ? userItemProblem(entry.plugin.root, file, yourOwners(process.env)) : undefined;
      if (foreign !== undefined) {
        report("error", file, `${userItemRefusal(`Plugin ${name}'s code module`, foreign)} The code module was not loaded.`);
        continue;
      }
      let url = pathToFileURL(file).href;
      let root = realpathSync.native(entry.plugin.root);
      // A trusted workspace's module runs as `keel trust` approved it (its entry file's content and its folder's files).
      if (entry.plugin.level !== "user") {
        // Read in chunks and bounded: a 3 GiB sparse `main` is refused, never read or imported. Never fatal.
        const digest = fileDigest(file);
        if (!digest.startsWith("sha256:")) {
          const why = digest.startsWith("stat:") ? `it is larger than ${MAX_DIGEST_BYTES} bytes` : digest;
          report("error", file, `Plugin ${name}: main "${main}" could not be read (${why}); the code module was not loaded. Fix or remove the file.`);
          continue;
        }
        // The bare hex, as pinned before `fileDigest` existed.
        const sha256 = digest.slice("sha256:".length);
        // What the module imports from its folder is pinned too (a sandboxed command may write there). Only a pinned trust needs it: `--trust` runs it as it is.
        const folder = host.trust.approved
          ? pluginFolderDigest(entry.plugin.root, join(host.workspace.root, ".keel"))
          : { ok: true as const, digest: "", files: undefined, links: undefined };
        if (!folder.ok) {
          report(
            "error",
            folder.file,
            `Plugin ${name}: its folder cannot be pinned for \`keel trust\` (${relative(host.workspace.root, folder.file) || folder.file}: ${folder.reason}); the code module was not loaded. Keep the plugin folder to its own code (at most ${MAX_PLUGIN_FILES} files and ${MAX_PLUGIN_BYTES} bytes outside node_modules/ and .git/, no links out of it), or install it at user level ($KEEL_HOME/plugins/).`,
          );
          continue;
        }
        const item = {
          kind: "code plugin" as const,
          name: `${name} (${relative(host.workspace.root, file)})`,
          config: [name, main, sha256, folder.digest],
        };
        if (!host.approves(item, file)) continue;
        // keel imports it unsandboxed (with `--trust`, from this folder): sandboxed commands of this run must not rewrite it.
        host.sandbox.keepReadOnly(entry.plugin.root);
        // Imported from keel's copy of the pinned bytes: what it imports, reads or starts by its own URL is that copy (the start-up/import race closed), never the workspace.
        if (folder.files) {
          const copy = pluginSnapshot({
            folder: root,
            digest: folder.digest,
            files: folder.files,
            links: folder.links,
            keelHome: host.workspace.keelHome,
            workspaceRoot: host.workspace.root,
          });
          if (!copy.ok) {
            report(
              "error",
              copy.file,
              `Plugin ${name}: keel could not make its pinned copy of the plugin folder to run it from (${displayed(host, copy.file)}: ${copy.reason}); the code module was not loaded. Run keel again (a changed folder is then held back until \`keel trust\`), or install the plugin at user level ($KEEL_HOME/plugins/).`,
            );
            continue;
          }
          snapshots.add(copy.dir);
          url = pathToFileURL(join(copy.dir, relative(root, file))).href;
          root = copy.dir;
        }
      }
      let apply: CodePluginApply;
      try {
        const found = applyOf(await imports.import(url));
        if (!found) {
          report("error", file, `Plugin ${name}: the module must export a function apply(keel) (named, or as the default export); it was not applied.`);
          continue;
        }
        apply = found;
      } catch (error) {
        const pinned = snapshots.has(root) && notFound(error);
        report(
          "error",
          file,
          pinned
            ? `Plugin ${name}: the module could not be imported (${errorMessage(error)}): a workspace code plugin runs from keel's pinned copy of its folder (${root}): it may import only files inside its folder (bundle or vendor what it needs there) and Node's built-ins; install it at user level ($KEEL_HOME/plugins/) to import from elsewhere.`
            : `Plugin ${name}: the module could not be imported (${errorMessage(error)}); fix it and run keel again.`,
        );
        continue;
      }
      let timedOut = false;
      const api: CodePluginApi = Object.freeze({
        name,
        root,
        workspace: Object.freeze({ root: host.workspace.root, cwd: host.workspace.cwd }),
        hooks: pluginHooks(host),
        registerTool(tool: CodePluginTool) {
          const problem = codeToolProblem(tool);
          if (timedOut)
            report(
              "error",
              file,
              `Plugin ${name}: tool "${String(tool?.name)}" was registered after apply(keel) timed out; it was not registered. Register tools before apply settles.`,
            );
          else if (problem) report("error", file, `Plugin ${name}: ${problem}; the tool was not registered.`);
          else tools.push({ entry, tool: { ...tool }, file });
        },
      });
      try {
        const settled = await withinBound(
          Promise.resolve().then(() => apply(api)),
          timeoutMs,
        );
        if (settled) entry.record.code = { module: file, tools: [] };
        else {
          // Tools registered before the bound stay, as when apply throws: its hook taps cannot be undone either.
          timedOut = true;
          report(
            "error",
            file,
            `Plugin ${name}: apply(keel) did not settle within ${timeoutMs} ms; keel went on without waiting (tools and taps it added before that stay, later registrations are refused). Make apply return sooner (start long work without awaiting it), or raise ${APPLY_TIMEOUT_ENV}.`,
          );
        }
      } catch (error) {
        report("error", file, `Plugin ${name}: apply(keel) threw (${errorMessage(error)}); what it did before that stays.`);
      }
    }
  } finally {
    // Also when something above throws: the listener never outlives the loading.
    imports.close();
  }
  // Once per start, and only where pinned copies are used: old copies of changed plugins go after a month unused.
  if (snapshots.size) prunePluginSnapshots(snapshotsDir(host.workspace.keelHome), snapshots);
  // User-level plugins' tools register first, so a user's name wins over a trusted workspace plugin's.
  const ordered = [...tools.filter((t) => t.entry.plugin.level === "user"), ...tools.filter((t) => t.entry.plugin.level !== "user")];
  if (tools.length)
    host.hooks.registerTools.tapPromise({ name: PLUGIN_NAME, stage: REGISTER_STAGE }, async () => {
      const reserved = reservedNames(host.registry);
      for (const { entry, tool, file } of ordered) {
        const name = entry.plugin.manifest.name;
        // As for declared tools: a workspace plugin may not borrow what rules grant keel's own tool families or MCP servers.
        // Neither may any plugin take the name of keel's skill tool or MCP helpers where they are not registered.
        const keel = reserved.keelTool(tool.name);
        const taken = keel ? undefined : entry.plugin.level === "user" ? undefined : reserved.reason(tool.name);
        if (keel || taken) {
          addDiagnostic(
            host,
            entry,
            "error",
            file,
            keel
              ? `Plugin ${name}: tool "${tool.name}" was not registered: ${keel}; no plugin may take that name. Pick another name.`
              : `Plugin ${name}: tool "${tool.name}" was not registered: ${taken}, and workspace plugins may not use names reserved for keel's own tools. Pick another name.`,
          );
          continue;
        }
        try {
          if (host.registry.register(await toToolDefinition(name, tool))) (entry.record.code ??= { module: file, tools: [] }).tools.push(tool.name);
          else
            addDiagnostic(
              host,
              entry,
              "error",
              file,
              `Plugin ${name}: tool "${tool.name}" was refused by the registry (the name is taken; see its diagnostic). Pick another name.`,
            );
        } catch (error) {
          addDiagnostic(host, entry, "error", file, `Plugin ${name}: tool "${tool.name}" could not be registered (${errorMessage(error)}).`);
        }
      }
    });
  const userNames = new Map<string, LoadedPlugin>();
  for (const { entry, tool } of ordered) if (entry.plugin.level === "user" && !userNames.has(tool.name)) userNames.set(tool.name, entry.plugin);
  return { userNames };
}

/** What code plugins will register, known before any plugin tool registers. */
export interface CodeToolNames {
  /** Tool names user-level code plugins registered, with the plugin of each: workspace plugins may not declare them (see registerPluginTools). */
  userNames: ReadonlyMap<string, LoadedPlugin>;
}

/** `file` relative to the workspace when inside it, else as is. */
function displayed(host: Host, file: string): string {
  return inside(host.workspace.root, file) ? relative(host.workspace.root, file) || "." : file;
}

/** The hooks a code plugin sees: the host's own, no others. */
function pluginHooks(host: Host): CodePluginHooks {
  return Object.freeze(Object.fromEntries(CODE_PLUGIN_HOOKS.map((name) => [name, host.hooks[name]]))) as unknown as CodePluginHooks;
}

function addDiagnostic(host: Host, entry: PluginEntry, severity: Diagnostic["severity"], file: string, message: string): void {
  const d: Diagnostic = { severity, source: PLUGIN_DIAGNOSTIC_SOURCE, file, message };
  host.diagnostics.add(d);
  entry.record.diagnostics.push(d);
}
