/** Where an error records the names of its keel classes (see `KeelError[Symbol.hasInstance]`). */
const KEEL_CLASSES = Symbol.for("keel.error.classes");

/**
 * Base of every configuration or programming error keel throws; tool failures are observations instead.
 *
 * One process can hold two copies of these classes: the `keel` CLI runs a bundle (dist/cli/),
 * while a code plugin that imports `ToolError` from "keel" gets the library's (dist/lib/).
 * `instanceof` therefore also accepts an error whose recorded class names include this class's
 * name, so a plugin's `ToolError` keeps its observation code either way.
 */
export abstract class KeelError extends Error {
  override readonly name: string;
  /** Exit code the CLI uses when this error reaches the top: 2 for usage/configuration, 1 otherwise. */
  readonly exitCode: number = 2;
  declare readonly [KEEL_CLASSES]: readonly string[];
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    const classes: string[] = [];
    for (let c: unknown = new.target; typeof c === "function" && c !== Error; c = Object.getPrototypeOf(c)) classes.push((c as { name: string }).name);
    Object.defineProperty(this, KEEL_CLASSES, { value: classes });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    const classes = (value as { [KEEL_CLASSES]?: unknown } | null | undefined)?.[KEEL_CLASSES];
    return Array.isArray(classes) && classes.includes(this.name);
  }
}

/** The command line or an API was used wrongly; the message says how to call it instead. */
export class UsageError extends KeelError {}

/** A manifest or config file is invalid; names the file and the field. */
export class ManifestError extends KeelError {
  constructor(
    message: string,
    readonly file?: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** A state file could not be read or written safely (unparseable, locked). Never overwritten. */
export class StateError extends KeelError {
  override readonly exitCode = 1;
  constructor(
    message: string,
    readonly file?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Thrown by a tool's `execute` to end the call with a specific observation code
 * (e.g. `precondition_failed`); the pipeline turns it into an observation.
 */
export class ToolError extends KeelError {
  override readonly exitCode = 1;
  constructor(
    message: string,
    readonly code: import("./types.js").ObservationCode = "execution_failed",
    readonly data: unknown = null,
    readonly metadata: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** An MCP server failed to start, crashed or answered wrongly; carries the server name and stderr tail. */
export class McpServerError extends KeelError {
  override readonly exitCode = 1;
  constructor(
    message: string,
    readonly server: string,
    readonly stderrTail = "",
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A plugin or runtime tap threw inside a hook; names the tap and the hook. */
export class HookError extends KeelError {
  override readonly exitCode = 1;
  constructor(
    readonly hook: string,
    readonly tap: string,
    cause: unknown,
  ) {
    super(`Hook tap "${tap}" failed in hook "${hook}": ${errorMessage(cause)}`, { cause });
  }
}

/** Best-effort readable message of any thrown value. Never throws. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return typeof error === "string" ? error : JSON.stringify(error);
  } catch {
    return String(error);
  }
}
