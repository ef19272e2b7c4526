import { isAbsolute, relative, resolve, sep } from "node:path";
import type { CompiledRule } from "./permission-rule.js";
import { realOrSelf, realTarget } from "./real-path.js";
import type { ShellParser } from "./shell/shell-analysis.js";
import { ShellCall } from "./shell/shell-call.js";
import type { ToolDefinition } from "./types.js";

/** One call being decided: its names, argument, and (for shell tools, parsed on first use) its commands. */
export class PermissionCall {
  private parsed: ShellCall | undefined;

  constructor(
    readonly calledAs: string,
    readonly resolved: string | undefined,
    readonly tool: ToolDefinition,
    /** The argument; for path tools the path as written, relative to `root`. */
    readonly arg: string | undefined,
    private readonly root: string,
    private readonly parser: ShellParser | undefined,
  ) {}

  private real: string | undefined;

  /** For path tools: where `arg` really leads, relative to the root (see `resolvedPath`); resolved on first use, i.e. only when a rule has a path specifier. */
  get resolvedArg(): string | undefined {
    if (this.arg === undefined) return undefined;
    return (this.real ??= resolvedPath(this.root, this.arg));
  }

  /** The parsed shell command, for tools whose permission key is a command line. */
  get shell(): ShellCall | undefined {
    if (this.tool.permissionKey !== "command" || this.arg === undefined) return undefined;
    return (this.parsed ??= new ShellCall(this.arg, this.parser));
  }

  /** Whether the rule's tool-name glob names this call (called name or resolved tool). */
  names(rule: CompiledRule): boolean {
    return rule.name(this.calledAs) || (this.resolved !== undefined && rule.name(this.resolved));
  }
}

/** The argument rules match for a call (the input's `permissionKey` value; for path tools relative to `root`), or undefined. Never throws. */
export function permissionArgument(tool: ToolDefinition, input: unknown, cwd: string, root: string): string | undefined {
  if (!tool.permissionKey || input === null || typeof input !== "object") return undefined;
  const value = (input as Record<string, unknown>)[tool.permissionKey];
  if (typeof value !== "string") return undefined;
  if (tool.permissionMatch !== "path") return value;
  const rel = relative(root, resolve(cwd, value));
  return rel === "" ? "." : rel;
}

/**
 * Where the path `rel` (relative to `root`) really leads: its deepest existing ancestor's real
 * path plus the rest, relative to the real root (`src/settings → ../.env` is `.env`), when that
 * stays inside the root; otherwise `rel` as written (confinement refuses it anyway).
 */
function resolvedPath(root: string, rel: string): string {
  const abs = resolve(root, rel);
  const real = realTarget(abs);
  if (real === abs) return rel;
  let out = relative(root, real);
  if (!staysInside(out)) out = relative(realOrSelf(root), real);
  return staysInside(out) ? out || "." : rel;
}

/** True for a relative path that does not climb out. */
export function staysInside(rel: string): boolean {
  return rel === "" || (rel !== ".." && !rel.startsWith(".." + sep) && !isAbsolute(rel));
}
