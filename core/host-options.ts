import type { Elicitor } from "./elicitation.js";
import type { KeelConfig } from "./config/config-schema.js";
import type { Host } from "./host.js";
import type { PermissionRules } from "./permissions.js";
import type { Approver, EventSink, KeelEvent } from "./types.js";

/** A plugin (or runtime, or built-in feature): taps hooks and registers tools in `apply`. */
export interface KeelPlugin {
  name: string;
  apply(host: Host): void | Promise<void>;
}

/** Options to create a host. */
export interface HostOptions {
  /** Working directory; the workspace is resolved from it. */
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** `--trust`: trust the workspace's manifests for this invocation. */
  trust?: boolean;
  /**
   * Open the host as `keel trust` reviews the workspace: its config is read as trusted, nothing it
   * declares runs (no server, hook or code plugin), and `host.trustItems` lists what would.
   */
  reviewTrust?: boolean;
  /** `--yes`: approve every `ask` (deny still wins). */
  yes?: boolean;
  /** Prompts the user on a TTY; absent when non-interactive. */
  approver?: Approver;
  /** Asks the user when an MCP server elicits input (a terminal prompt); config `mcp.elicitation` `decline`/`cancel` still wins. Absent: the MCP runtime's default. */
  elicit?: Elicitor;
  /** Shows the user a note that is not part of any result (a hook's non-blocking error); the CLI writes it to stderr. Absent: dropped. */
  notice?: (line: string) => void;
  /** Shows progress of a long wait (MCP servers a command waits for); the CLI writes it to stderr on a terminal only. Absent: silent. */
  progress?: (line: string) => void;
  /** Use this config instead of loading it (tests, benchmarks). */
  config?: KeelConfig;
  /** Event sink for calls without their own; default `.keel/events.jsonl`. */
  events?: EventSink;
  /** Receives every event the host's own log and its sessions' logs record, as it is recorded (an embedding program's event stream). */
  onEvent?: (event: KeelEvent) => void;
  /** Permission rules added at the command-line level (like `--yes`, trusted): deny lists accumulate, so a deny anywhere still wins. */
  permissions?: PermissionRules;
  /** The model (a name, `scripted:FILE`, or a `model` config object), replacing the configured one. */
  model?: KeelConfig["model"];
  /**
   * Which MCP servers to start while the host opens. `true` (default): every trusted eager server,
   * waiting for each. `"background"`: every trusted eager server, but one whose tool list is cached
   * and fresh is registered from the cache at once and started without waiting (its tools are
   * re-synced when it is up; a call of one of them waits for the start); the others are waited for
   * as with `true`. `false`: none. `{ tool }`: only the servers a call of that tool may need
   * (`mcp__a__x` starts server `a`; a built-in tool none; any other name, e.g. an alias or a
   * workflow, every server). Servers not started are registered from the tool cache, when it has
   * their tools, and start on their first call. Each command decides for itself (the CLI opens
   * hosts with `false`).
   */
  startServers?: boolean | "background" | { tool: string };
}
