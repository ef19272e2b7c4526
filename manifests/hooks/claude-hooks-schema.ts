import { z } from "zod";
import { MAX_TIMER_MS } from "../../core/index.js";
import { formatJsonPath } from "../plugin/json-path.js";
import { CLAUDE_HOOK_EVENTS } from "../plugin/plugin-manifest-schema.js";

/** Default timeout of a command hook, in seconds (Claude Code's). */
export const DEFAULT_HOOK_TIMEOUT_SEC = 60;

/** Where a hooks object came from: the file, the JSON path of the object in it, and who wrote it. */
export interface HookOrigin {
  file: string;
  /** JSON path of the `{Event: [...]}` object inside the file (`hooks`, or `""` for the top level). */
  path: ReadonlyArray<PropertyKey>;
  /** `user`: `$KEEL_HOME` config or a user-level plugin; `workspace`: a file in the repository. */
  level: "user" | "workspace";
  /** The plugin the hook belongs to (its root is `CLAUDE_PLUGIN_ROOT`). */
  plugin?: { name: string; root: string };
  /**
   * The folder a workspace hook runs in, where the relative paths of its command resolve (and are
   * pinned): derived from where its file was found, never from its content. Undefined for your own
   * hooks (nothing of theirs is pinned): they run in the session's (or call's) folder, as before.
   */
  dir?: string;
  /**
   * `CLAUDE_PROJECT_DIR` for the hook when it is not the workspace root: a `.claude/settings*.json`
   * below the root belongs to the folder holding its `.claude/`, as Claude Code started there sets it.
   */
  projectDir?: string;
}

/** One command hook, as declared. */
export interface CommandHookSpec {
  event: string;
  /** Regex over tool names (`Bash`, `Edit|Write`); undefined, `""` or `*` match every tool. */
  matcher?: string;
  command: string;
  timeoutSec: number;
  /** Claude Code permission-rule filter (`Bash(git commit:*)`). */
  if?: string;
  /** Runs in the background (`async`); `rewake`: its exit-2 stderr also reaches the model later (`asyncRewake`). */
  background?: "async" | "rewake";
  origin: HookOrigin;
  /** JSON path of the hook inside its file. */
  path: string;
}

/** A problem found while reading hooks (never fatal: the hook is skipped). */
export interface HookIssue {
  severity: "warning" | "error";
  file: string;
  path: string;
  message: string;
}

const CommandHook = z
  .object({
    type: z.literal("command"),
    command: z.string().trim().min(1, "must be a non-empty command line"),
    timeout: z.number().positive("must be a positive number of seconds").optional(),
    if: z.string().trim().min(1).optional(),
    async: z.boolean().optional(),
    asyncRewake: z.boolean().optional(),
  })
  .passthrough();

const MatcherGroup = z.object({ matcher: z.string().optional(), hooks: z.array(z.unknown()) }).passthrough();

/**
 * Reads a Claude Code `hooks` object (`{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type":
 * "command", ...}]}]}`): every command hook with its event and origin. Keys that are not Claude
 * Code events are skipped silently when `onlyEvents` (a plugin.json `hooks` also holds keel's
 * lifecycle texts), otherwise with a warning; hooks of other types (`prompt`, `http`) are skipped
 * with a warning naming file and JSON path. Never throws.
 */
export function parseClaudeHooks(value: unknown, origin: HookOrigin, onlyEvents = false): { hooks: CommandHookSpec[]; issues: HookIssue[] } {
  const hooks: CommandHookSpec[] = [];
  const issues: HookIssue[] = [];
  const at = (...rest: PropertyKey[]) => formatJsonPath([...origin.path, ...rest]) || "(top level)";
  const issue = (path: string, message: string, severity: HookIssue["severity"] = "warning") => issues.push({ severity, file: origin.file, path, message });
  if (value === undefined) return { hooks, issues };
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    issue(at(), `must be an object of hook events such as {"PreToolUse": [...]}; the hooks were ignored.`, "error");
    return { hooks, issues };
  }
  for (const [event, groups] of Object.entries(value)) {
    if (event.startsWith("_")) continue;
    if (!CLAUDE_HOOK_EVENTS.has(event)) {
      if (!onlyEvents) issue(at(event), `"${event}" is not a Claude Code hook event keel knows (${[...CLAUDE_HOOK_EVENTS].join(", ")}); it was ignored.`);
      continue;
    }
    if (!Array.isArray(groups)) {
      issue(at(event), `must be a list of {"matcher", "hooks"} entries; the event's hooks were ignored.`, "error");
      continue;
    }
    groups.forEach((group, gi) => {
      const g = MatcherGroup.safeParse(group);
      if (!g.success) return issue(at(event, gi), `${zodReason(g.error)}; the entry was ignored.`, "error");
      const matcher = g.data.matcher;
      // `*` (like "" or none) matches every tool, as in Claude Code; it is no regular expression.
      if (matcher !== undefined && matcher !== "*" && !validRegex(matcher))
        return issue(at(event, gi, "matcher"), `"${matcher}" is not a valid regular expression; the entry was ignored.`, "error");
      g.data.hooks.forEach((hook, hi) => {
        const path = at(event, gi, "hooks", hi);
        const type = (hook as { type?: unknown } | null)?.type;
        if (type !== "command" && typeof type === "string")
          return issue(path, `hooks of type "${type}" are not supported by keel (only "command"); it was ignored.`);
        const h = CommandHook.safeParse(hook);
        if (!h.success) return issue(path, `${zodReason(h.error)}; the hook was ignored.`, "error");
        if (h.data.timeout !== undefined && h.data.timeout * 1000 > MAX_TIMER_MS)
          issue(
            at(event, gi, "hooks", hi, "timeout"),
            `timeout is ${h.data.timeout} s, more than the longest timeout keel can set (${MAX_TIMER_MS / 1000} s, about 24.8 days); it is capped there. Set at most ${Math.floor(MAX_TIMER_MS / 1000)}.`,
          );
        hooks.push({
          event,
          ...(matcher !== undefined ? { matcher } : {}),
          command: h.data.command,
          timeoutSec: h.data.timeout ?? DEFAULT_HOOK_TIMEOUT_SEC,
          ...(h.data.if ? { if: h.data.if } : {}),
          ...(h.data.asyncRewake ? { background: "rewake" as const } : h.data.async ? { background: "async" as const } : {}),
          origin,
          path,
        });
      });
    });
  }
  return { hooks, issues };
}

function validRegex(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

function zodReason(error: z.ZodError): string {
  const first = error.issues[0];
  if (!first) return "invalid";
  const where = first.path.length ? `${formatJsonPath(first.path)}: ` : "";
  return `${where}${first.message}`;
}
