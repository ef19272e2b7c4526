import { shownPath } from "./shown-path.js";

/** Severity of a diagnostic: `error` means something was skipped, `warning` a surprise, `info` a note. */
export type DiagnosticSeverity = "error" | "warning" | "info";

/**
 * A problem found while loading manifests, config or tools. Never thrown: collected
 * and shown by `keel plugins`, `keel tools --json`, `keel mcp` so the host keeps running.
 */
export interface Diagnostic {
  severity: DiagnosticSeverity;
  /** Which subsystem produced it: `plugin`, `mcp`, `workflow`, `registry`, `config`, ... */
  source: string;
  /** Absolute path of the file concerned, when there is one. */
  file?: string;
  /** JSON path inside the file, e.g. `tool_aliases[2].base_tool`. */
  path?: string;
  /** What is wrong and what to do about it. */
  message: string;
}

/**
 * Collects diagnostics; one per host, shared by every loader. A diagnostic equal to one already
 * recorded (same severity, source, file, path and message) is recorded once: re-reading the same
 * thing — an MCP server re-listing its tools on every `list_changed` — says nothing new, and a
 * long-running host must not grow its list with it.
 */
export class Diagnostics {
  readonly items: Diagnostic[] = [];
  private readonly seen = new Set<string>();
  /** Records one diagnostic, unless an equal one is recorded already. */
  add(diagnostic: Diagnostic): void {
    const key = JSON.stringify([diagnostic.severity, diagnostic.source, diagnostic.file, diagnostic.path, diagnostic.message]);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push(diagnostic);
  }
  /** Records an error-severity diagnostic. */
  error(source: string, message: string, where: { file?: string; path?: string } = {}): void {
    this.add({ severity: "error", source, message, ...where });
  }
  /** Records a warning-severity diagnostic. */
  warn(source: string, message: string, where: { file?: string; path?: string } = {}): void {
    this.add({ severity: "warning", source, message, ...where });
  }
  /** Records an info-severity diagnostic. */
  info(source: string, message: string, where: { file?: string; path?: string } = {}): void {
    this.add({ severity: "info", source, message, ...where });
  }
}

/**
 * Formats a diagnostic as one human-readable line: `error plugin file:path: message`. A file name with
 * a newline or another unclear character is shown quoted (`shownPath`), so it cannot pass for lines of its own.
 */
export function formatDiagnostic(d: Diagnostic): string {
  const where = [d.file === undefined ? undefined : shownPath(d.file), d.path].filter(Boolean).join(":");
  return `${d.severity} [${d.source}]${where ? ` ${where}` : ""}: ${d.message}`;
}
