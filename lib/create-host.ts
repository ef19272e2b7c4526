import { agentPlugin, builtinTools, Host, sinkWithEmit, type EventSink, type HostOptions, type KeelEvent, type KeelPlugin } from "../core/index.js";
import { pluginRuntimes } from "../plugins/index.js";
import { defaultRuntimes } from "../runtimes/index.js";
import { toApprover, type ApproverLike } from "./approver.js";

/**
 * Options of `createHost`: a working directory and everything `HostOptions` takes (`env`, `trust`,
 * `yes`, `permissions`, `model`, `onEvent`, `events`, `notice`, `startServers`), plus an approver
 * given as an object or a function, and in-process plugins.
 */
export interface CreateHostOptions extends Omit<HostOptions, "approver"> {
  /** Answers calls that need approval (a permission `ask`); without one (and without `yes`) such a call ends with `approval_required`. */
  approver?: ApproverLike;
  /** In-process plugins (`{ name, apply(host) }`) applied after keel's own runtimes and before the agent loop. */
  plugins?: KeelPlugin[];
}

/**
 * Opens a keel host on a directory, assembled as the `keel` CLI assembles it (the CLI calls this
 * function): built-in tools, the plugin runtime (manifests and trusted code plugins), every domain
 * runtime and the caller's `plugins` applied (built-in features are plugins too), then the agent
 * loop, then tools registered. Heavy parts (schemas, MCP servers, the session machinery) load on
 * first use. Throws `ManifestError` for invalid config; plugin problems are `host.diagnostics`.
 * The caller must `close()` the host.
 */
export async function createHost(options: CreateHostOptions): Promise<Host> {
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
