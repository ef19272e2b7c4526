import { statSync } from "node:fs";
import {
  agentPlugin,
  builtinTools,
  Host,
  modelConfigProblem,
  sinkWithEmit,
  UsageError,
  type EventSink,
  type HostOptions,
  type KeelEvent,
  type KeelPlugin,
} from "../core/index.js";
import { pluginRuntimes } from "../plugins/index.js";
import { defaultRuntimes } from "../runtimes/index.js";
import { toApprover, type ApproverLike } from "./approver.js";
import { checkCreateHostOptions } from "./embed-options.js";

/** What only keel's own commands may set: `config` replaces every config file (your `$KEEL_HOME` deny rules too), `reviewTrust` reads an untrusted workspace's config as trusted. */
const INTERNAL_OPTIONS = ["config", "reviewTrust"] as const;

/**
 * Options of `createHost`: a working directory and what `HostOptions` takes (`env`, `trust`, `yes`,
 * `permissions`, `model`, `elicit`, `onEvent`, `events`, `notice`, `progress`, `startServers`), plus an
 * approver given as an object or a function, and in-process plugins. Not `config` or `reviewTrust`.
 */
export interface CreateHostOptions extends Omit<HostOptions, "approver" | (typeof INTERNAL_OPTIONS)[number]> {
  /** Answers calls that need approval (a permission `ask`); without one (and without `yes`) such a call ends with `approval_required`. */
  approver?: ApproverLike;
  /** In-process plugins (`{ name, apply(host) }`) applied after keel's own runtimes and before the agent loop. */
  plugins?: KeelPlugin[];
}

/** Options of `assembleHost`: `createHost`'s, and every `HostOptions` field (keel's own commands and tests). */
export interface AssembleHostOptions extends Omit<HostOptions, "approver"> {
  approver?: ApproverLike;
  plugins?: KeelPlugin[];
}

/**
 * Opens a keel host on a directory for a program (`import { createHost } from "keel"`), with the
 * defaults that restrict: the workspace is untrusted unless `trust: true`, your `keel trust` record or
 * `KEEL_TRUST=1` in `env` says otherwise (an explicit `trust: false` ignores `KEEL_TRUST`); nothing is
 * approved without `yes` or an approver; your `$KEEL_HOME` config (deny rules included) always applies;
 * an MCP server's question is declined unless `elicit` answers it (keel never reads the terminal on its
 * own). Throws `UsageError` for `config` or `reviewTrust` (keel's own options), an option of the wrong
 * type or an unknown one (checked: a JavaScript caller has no compiler, and a wrong type must not
 * widen), or a `cwd` that is not a directory; `ManifestError` for
 * invalid config; plugin problems are `host.diagnostics`. The caller must `close()` the host.
 */
export async function createHost(options: CreateHostOptions): Promise<Host> {
  for (const name of INTERNAL_OPTIONS)
    if ((options as object as Record<string, unknown>)[name] !== undefined)
      throw new UsageError(
        name === "config"
          ? "createHost does not take `config`: it would replace every config file, the deny rules of your $KEEL_HOME/config.json included. Pass `permissions` and `model`, or put settings in $KEEL_HOME/config.json (point `env.KEEL_HOME` at another folder for a config of the program's own)."
          : "createHost does not take `reviewTrust` (keel trust's own review, which reads an untrusted workspace's config as trusted). Open the host without it; `host.trustItems` lists what the workspace declares.",
      );
  checkCreateHostOptions(options);
  await checkModelObject(options.model);
  if (!isDirectory(options.cwd))
    throw new UsageError(
      `createHost: \`cwd\` ${options.cwd} is not an existing directory. Pass the directory of the workspace to open (a repository, or a folder in one).`,
    );
  const env = options.env ?? process.env;
  return assembleHost({
    ...options,
    // `trust: false` is the program's decision: a KEEL_TRUST left in its environment does not overrule it (nor reach hooks).
    ...(options.trust === false && env.KEEL_TRUST !== undefined ? { env: withoutTrust(env) } : {}),
    // An MCP server's question is the program's to answer: never asked on the terminal keel happens to run on.
    elicit: options.elicit ?? Object.assign(async () => ({ action: "decline" as const }), { waitsForUser: false }),
  });
}

/**
 * Opens a keel host on a directory, assembled as the `keel` CLI assembles it (the CLI and `createHost`
 * call this function): built-in tools, the plugin runtime (manifests and trusted code plugins), every domain
 * runtime and the caller's `plugins` applied (built-in features are plugins too), then the agent
 * loop, then tools registered. Heavy parts (schemas, MCP servers, the session machinery) load on
 * first use. Throws `ManifestError` for invalid config; plugin problems are `host.diagnostics`.
 * The caller must `close()` the host.
 */
export async function assembleHost(options: AssembleHostOptions): Promise<Host> {
  const { plugins = [], approver, ...rest } = options;
  // A sink of the caller's own does not call `onEvent`: forward its events too.
  const events = rest.events && rest.onEvent ? forwardingSink(rest.events, rest.onEvent) : rest.events;
  const host = await Host.create({ ...rest, events, approver: toApprover(approver) });
  try {
    await host.use(builtinTools(), ...pluginRuntimes(), ...defaultRuntimes(), ...plugins);
    // The agent loop is applied last: it sees every tool the others registered.
    await host.use(agentPlugin());
    await host.init();
  } catch (error) {
    await host.close();
    throw error;
  }
  return host;
}

/**
 * A sink that records into `sink` and hands a copy of each event (stamped, frozen) to `listener`; a
 * listener that throws is ignored, and so is an event that cannot be copied (keel's are plain data).
 */
function forwardingSink(sink: EventSink, listener: (event: KeelEvent) => void): EventSink {
  return sinkWithEmit(sink, (event) => {
    const stamped = event.ts === undefined ? { ts: Date.now(), ...event } : event;
    sink.emit(stamped);
    try {
      // The caller's sink may keep the object, or serialize it at the end of this turn: the listener
      // gets its own copy (nested objects too), so it may read the event, never change the record.
      listener(Object.freeze(structuredClone(stamped)) as KeelEvent);
    } catch {
      // a listener only watches
    }
  });
}

/**
 * A `model` object is checked as a config file's `model` is (`{ baseUrl: 42 }` would otherwise fail later, at
 * the first model call, as a TypeError): the config schema, so zod, loads only when a program passes one.
 */
async function checkModelObject(model: unknown): Promise<void> {
  if (model === null || typeof model !== "object") return;
  const problem = await modelConfigProblem(model);
  if (problem)
    throw new UsageError(
      `createHost: \`${problem.field}\` ${problem.message} (checked as a config file's \`model\` is). See the README sections "Embedding keel" and "Configuration".`,
    );
}

/** `path` is a directory (links followed). */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `env` without `KEEL_TRUST`. */
function withoutTrust(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { KEEL_TRUST: _trust, ...rest } = env;
  return rest;
}
