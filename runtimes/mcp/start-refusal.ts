import type { McpServerError } from "../../core/index.js";
import { backoffError, breakerError } from "./connection-errors.js";
import { backingOff, type ServerHealth } from "./server-health.js";

/** Backoff before restarting a failed server: 250 ms doubling per recent failure, at most 4 s. */
export function restartDelay(recentFailures: number): number {
  return Math.min(4000, 250 * 2 ** Math.max(0, recentFailures - 1));
}

/**
 * Why a server's health record keeps it from starting now: its breaker is open, or a start-up
 * timeout put it in backoff (the error quotes the stderr tail `tail` returns, read only then);
 * undefined when it may start.
 */
export function startRefusal(name: string, health: ServerHealth, tail: () => string): McpServerError | undefined {
  if (health.breakerOpen) return breakerError(name, tail(), health.lastError);
  if (backingOff(health)) return backoffError(name, tail(), health);
  return undefined;
}
