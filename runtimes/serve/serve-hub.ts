import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Host } from "../../core/index.js";
import type { LiveHost } from "./live-host.js";
import { servedPrompts } from "./served-prompts.js";
import { type ServedTool, servedTools } from "./served-tools.js";

/** What every session of one `keel mcp serve` shares. */
export interface ServeSettings {
  /** `--tools` globs as a predicate. */
  served: (name: string) => boolean;
  /** The `--tools` globs as given (for messages); none: every tool is served. */
  globs?: readonly string[];
  /** Set with `--tools`: the tools a served call may reach beyond itself (a workflow's prompt steps and prompt commands; see `RunContext.toolBound`). */
  bound?: (name: string) => boolean;
  /** Writes a line to stderr (never stdout: in stdio mode it is the protocol). */
  notice: (line: string) => void;
  /** keel's version, reported as the server's. */
  version: string;
}

/**
 * The state one `keel mcp serve` shares between its client sessions: the live host, the served
 * tool list (computed once per host and registry version) and the open sessions, which it tells
 * `notifications/tools/list_changed` (and `prompts/list_changed`) when a reload or an upstream
 * server changed what they would list.
 */
export class ServeHub {
  private readonly sessions = new Set<Server>();
  private cached: { host: Host; version: number; tools: ServedTool[]; byName: Map<string, ServedTool> } | undefined;
  private toolsSignature: string;
  private promptsSignature: string;

  constructor(
    readonly live: LiveHost,
    readonly settings: ServeSettings,
  ) {
    this.toolsSignature = signature(this.tools());
    this.promptsSignature = signature(servedPrompts(live.host));
    live.onChange((why) => this.changed(why));
  }

  /** The tools the current host serves. */
  tools(): ServedTool[] {
    return this.catalog().tools;
  }

  /** The served tool of that name on the current host, if any. */
  tool(name: string): ServedTool | undefined {
    return this.catalog().byName.get(name);
  }

  /** Adds a connected session (it is told of list changes until `remove`). */
  add(server: Server): void {
    this.sessions.add(server);
  }

  /** Forgets a closed session. */
  remove(server: Server): void {
    this.sessions.delete(server);
  }

  private catalog(): NonNullable<ServeHub["cached"]> {
    const host = this.live.host;
    if (this.cached?.host !== host || this.cached.version !== host.registry.version) {
      const tools = servedTools(host, this.settings.served);
      this.cached = { host, version: host.registry.version, tools, byName: new Map(tools.map((t) => [t.name, t])) };
    }
    return this.cached;
  }

  private changed(why: string): void {
    const tools = signature(this.tools());
    const prompts = signature(servedPrompts(this.live.host));
    const toolsChanged = tools !== this.toolsSignature;
    const promptsChanged = prompts !== this.promptsSignature;
    this.toolsSignature = tools;
    this.promptsSignature = prompts;
    if (!toolsChanged && !promptsChanged) return;
    this.settings.notice(`keel mcp serve: ${why}; the ${[toolsChanged && "tool", promptsChanged && "prompt"].filter(Boolean).join(" and ")} list changed.`);
    for (const session of this.sessions) {
      // A session whose transport is gone is removed when it closes; a failed send changes nothing else.
      if (toolsChanged) session.sendToolListChanged().catch(() => undefined);
      if (promptsChanged) session.sendPromptListChanged().catch(() => undefined);
    }
  }
}

function signature(items: unknown[]): string {
  return JSON.stringify(items, (key, value: unknown) => (typeof value === "function" ? undefined : value));
}
