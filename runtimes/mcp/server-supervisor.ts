import { inToolProcess, orTrustOnce, TRUST_ONCE } from "../../core/index.js";
import { setTimeout as sleep } from "node:timers/promises";
import { changedPinnedFile, type Host } from "../../core/index.js";
import type { McpServerConfig } from "../../manifests/mcp/mcp-server-config.js";
import { pluginServerProblem } from "../../manifests/mcp/plugin-server-files.js";
import { breakerError } from "./connection-errors.js";
import { loginCommand } from "./oauth-provider.js";
import type { ServerHealthStore } from "./origin-state.js";
import type { McpServerState } from "./server-status.js";
import { restartDelay, startRefusal } from "./start-refusal.js";
import type { StderrRing } from "./stderr-ring.js";

/** The part of a connection its supervisor reads and sets: its state and last error, its stderr, its redaction. */
export interface SupervisedStatus {
  state: McpServerState;
  lastError?: string;
  readonly stderr: StderrRing;
  redact(text: string): string;
}

/**
 * The supervision of one server's connection: whether the server may start now (its pinned files
 * unchanged, its breaker closed, no start-up backoff), how long a restart waits after a failure,
 * and the failure states it sets on the connection (`failed`, with the health record, an
 * `mcp_server_failed` event and the breaker's message; `needs_login`, which is not a failure). It
 * holds this process's failure history; the health store holds it across processes.
 */
export class ServerSupervisor {
  /** When the last failure of this process was (`performance.now()`: a clock put back or ahead does not stretch the restart delay). */
  private lastFailureAt: number | undefined;
  private recentFailures = 0;

  constructor(
    private readonly name: string,
    private readonly deps: { host: Host; health: ServerHealthStore },
    private readonly status: SupervisedStatus,
  ) {}

  /** True, with the state `failed`, when a file the command line names changed since `keel trust` (checked again before each start). */
  changedPin(pinned: [string, string][] | undefined): boolean {
    const changed = pinned && changedPinnedFile(this.deps.host.workspace.root, pinned);
    if (!changed) return false;
    this.status.state = "failed";
    this.status.lastError = `${changed} changed since this workspace was trusted, so the server was not started: review it with \`keel trust\`${orTrustOnce(inToolProcess(this.deps.host.env), TRUST_ONCE.reRun)}.`;
    return true;
  }

  /** True, with the state `failed`, when `config` (a user-level plugin's server) runs a file outside its plugin that another user could change (see `pluginServerProblem`). */
  outsideFiles(config: McpServerConfig): boolean {
    const problem = pluginServerProblem(config);
    if (problem === undefined) return false;
    this.status.state = "failed";
    this.status.lastError = problem;
    return true;
  }

  /** True, with the state `failed`, when the health record keeps the server from starting (the stderr of the last failed start is shown). */
  async refused(): Promise<boolean> {
    const { stderr } = this.status;
    const health = await this.deps.health.get(this.name);
    const refused = startRefusal(this.name, health, () => {
      if (health.stderrTail && !stderr.total) stderr.push(`[keel] stderr of the last failed start:\n${health.stderrTail}\n`);
      return stderr.tail();
    });
    if (!refused) return false;
    this.status.state = "failed";
    this.status.lastError = this.status.redact(refused.message);
    return true;
  }

  /** Before a call restarts the server: throws the McpServerError of an open breaker or a backoff, else waits out the delay after a recent failure (`signal` ends the wait). */
  async beforeRestart(signal?: AbortSignal): Promise<void> {
    const health = await this.deps.health.get(this.name);
    const refused = startRefusal(this.name, health, () => this.status.stderr.tail());
    if (refused) throw refused;
    if (this.lastFailureAt !== undefined) {
      const wait = restartDelay(this.recentFailures) - (performance.now() - this.lastFailureAt);
      if (wait > 0) await sleep(wait, undefined, { signal });
    }
  }

  /** Marks the server failed; the message (redacted) becomes `lastError`, the health record and an event. */
  async fail(raw: string, startupTimeout = false): Promise<void> {
    const { status } = this;
    const message = status.redact(raw);
    status.state = "failed";
    status.lastError = message;
    this.lastFailureAt = performance.now();
    const health = await this.deps.health.recordFailure(this.name, message, status.stderr.tail(), Date.now(), startupTimeout);
    this.recentFailures = health.failures.length;
    this.deps.host.events.emit({ type: "mcp_server_failed", server: this.name, message, breakerOpen: health.breakerOpen });
    if (health.breakerOpen) status.lastError = breakerError(this.name, status.stderr.tail(), message).message;
  }

  /** Marks the server as waiting for `keel mcp login` (no breaker, no health record: it has not failed), with an `mcp_error` event. */
  needsLogin(reason?: string): void {
    this.status.state = "needs_login";
    // The reason is the server's or the authorization server's words: redacted like any error (a token may be quoted).
    this.status.lastError = this.status.redact(
      `${reason ? `${reason.replace(/\.$/, "")}; ` : ""}the server requires authorization (OAuth): run \`${loginCommand(this.name)}\``,
    );
    this.deps.host.events.emit({ type: "mcp_error", server: this.name, message: this.status.lastError });
  }

  /** Forgets every failure, here and in the health store, with the last error and the stderr kept; the state is `idle` (`keel mcp restart`). */
  async reset(): Promise<void> {
    await this.deps.health.reset(this.name);
    this.lastFailureAt = undefined;
    this.recentFailures = 0;
    this.status.lastError = undefined;
    this.status.stderr.clear();
    this.status.state = "idle";
  }
}
