import { basename, dirname, relative } from "node:path";
import {
  analyzeShell,
  inside,
  MISSING,
  orTrustOnce,
  parseJsonText,
  TRUST_ONCE,
  readRegularFile,
  userItemProblem,
  userItemRefusal,
  yourOwners,
  type ConfigLayer,
  type Host,
  type ShellParser,
} from "../../core/index.js";
import { parseClaudeHooks, type CommandHookSpec, type HookIssue, type HookOrigin } from "../../manifests/hooks/claude-hooks-schema.js";
import { RUN_HOOK_EVENTS } from "../../manifests/hooks/run-hook-events.js";

/** A declared hook and whether keel runs it here. */
export interface DeclaredHook extends CommandHookSpec {
  /** False when keel does not run it (untrusted workspace, an event keel does not run). */
  runs: boolean;
  /** Why it does not run. */
  why?: string;
  /** It does not run only because the workspace is not trusted. */
  untrusted?: true;
  /** The workspace files (and package scripts, `package.json#scripts.lint`) its command runs, with the digests `keel trust` approved: checked again before each run. */
  pinned?: [string, string][];
}

/** How to have an untrusted workspace's hooks run (`marked`: inside a process keel started for a tool, see orTrustOnce). */
export function trustHint(marked = false): string {
  return `Trust this workspace with \`keel trust\`${orTrustOnce(marked, TRUST_ONCE.flagOrEnv)} to run them.`;
}

/** Bytes read at most from one hooks file. */
const MAX_HOOKS_FILE_BYTES = 1024 * 1024;

/** Config layers that may carry hooks, with the JSON path of their `hooks` object. */
const LAYER_SOURCES: ReadonlySet<ConfigLayer["source"]> = new Set(["user", "claude", "project", "local"]);

/**
 * Every Claude Code command hook declared for this host: in `$KEEL_HOME/config.json`, keel config
 * files and `.claude/settings{,.local}.json` (`hooks` key), and in plugins (`hooks/hooks.json`, an
 * inline `hooks` object or hooks files named in plugin.json). Hooks are code: workspace-level ones
 * run only in a trusted workspace; user-level ones always. Problems (with file and JSON path) are
 * returned, never thrown. With `parser` (loaded for a trusted workspace), a workspace hook's pin also
 * covers the workspace files its command names (see `Host.namedFiles`), resolved from the folder the
 * hook runs in (`origin.dir`, see `layerDir`): the same from the workspace root and any folder below it.
 */
export function collectHooks(host: Host, parser?: ShellParser): { hooks: DeclaredHook[]; issues: HookIssue[] } {
  const all: CommandHookSpec[] = [];
  const issues: HookIssue[] = [];
  const add = (value: unknown, origin: HookOrigin, onlyEvents = false) => {
    const r = parseClaudeHooks(value, origin, onlyEvents);
    all.push(...r.hooks);
    issues.push(...r.issues);
  };
  for (const layer of host.configInfo.layers) {
    if (!LAYER_SOURCES.has(layer.source) || layer.value?.hooks === undefined) continue;
    const dir = layer.source === "user" ? undefined : layerDir(layer, host.workspace.root);
    add(layer.value.hooks, {
      file: layer.file,
      path: ["hooks"],
      level: layer.source === "user" ? "user" : "workspace",
      ...(dir === undefined ? {} : { dir }),
      // A package's Claude Code settings: its hooks see the package as their project, as Claude Code started there shows it.
      ...(layer.source === "claude" && dir !== undefined && dir !== host.workspace.root ? { projectDir: dir } : {}),
    });
  }
  let owners: ReadonlySet<number> | undefined;
  for (const p of host.service("plugins")?.handOffs() ?? []) {
    if (!p.claudeHooks) continue;
    // As in Claude Code, a plugin's hooks run in the project (they reach their own files through CLAUDE_PLUGIN_ROOT).
    const base = p.userLevel
      ? { level: "user" as const, plugin: { name: p.plugin, root: p.root } }
      : { level: "workspace" as const, plugin: { name: p.plugin, root: p.root }, dir: host.workspace.root };
    if (Object.keys(p.claudeHooks.inline).length) add(p.claudeHooks.inline, { ...base, file: p.manifestPath, path: ["hooks"] }, true);
    for (const file of p.claudeHooks.files) {
      // Your plugin's hooks run as you: a hooks file another user owns or may write (or in such a folder) does not.
      const foreign = p.userLevel ? userItemProblem(p.root, file, (owners ??= yourOwners(process.env))) : undefined;
      if (foreign !== undefined) {
        issues.push({
          severity: "error",
          file,
          path: "",
          message: `${userItemRefusal("This hooks file of a user-level plugin", foreign)} Its hooks do not run.`,
        });
        continue;
      }
      let value: unknown;
      try {
        value = parseJsonText(readRegularFile(file, MAX_HOOKS_FILE_BYTES));
      } catch (error) {
        issues.push({
          severity: "error",
          file,
          path: "",
          message: `could not be read as JSON (${(error as Error).message}); its hooks do not run. Fix the file.`,
        });
        continue;
      }
      const wrapped = value !== null && typeof value === "object" && "hooks" in value;
      add(wrapped ? (value as { hooks: unknown }).hooks : value, { ...base, file, path: wrapped ? ["hooks"] : [] });
    }
  }
  const hooks = all.map((h): DeclaredHook => {
    if (!RUN_HOOK_EVENTS.has(h.event)) return { ...h, runs: false, why: `keel does not run ${h.event} hooks yet` };
    if (h.origin.level === "workspace" && !host.trusted) return { ...h, runs: false, why: "the workspace is not trusted (hooks are code)", untrusted: true };
    // A trusted workspace's hook runs as `keel trust` approved it: what runs (command), when (event,
    // matcher, if) and how long; a changed or added one waits for a new review.
    if (h.origin.level === "workspace") {
      const absent: string[] = [];
      const files = parser ? host.namedFiles(commandWords(h, host, parser), h.origin.dir ?? host.workspace.root, absent) : [];
      const base = [h.event, h.matcher, h.if, h.command, h.timeoutSec, h.background];
      // The scripts the command names are pinned too; a line naming none keeps the pin it had before.
      const config = files.length ? [...base, files] : base;
      const name = `${h.event} \`${h.command}\` (${relative(host.workspace.root, h.origin.file)})`;
      if (!host.approves({ kind: "hook", name, config, ...(files.length ? { files: files.map(([file]) => file) } : {}) }, h.origin.file))
        return {
          ...h,
          runs: false,
          why: host.trust.unpinned
            ? "the workspace was trusted before `keel trust` recorded what it approves: review it with `keel trust`"
            : "it was added or changed since the workspace was trusted: review it with `keel trust`",
          untrusted: true,
        };
      // What a package manager would read if it were there (`.npmrc`) must still not be there when the hook runs.
      if (files.length) return { ...h, runs: true, pinned: [...files, ...absent.map((file): [string, string] => [file, MISSING])] };
    }
    return { ...h, runs: true };
  });
  return { hooks, issues };
}

/**
 * The folder a config layer's hooks run in: a keel config file's own folder (`sub/keel.config.json`
 * → `sub`; `.config/keelrc.json`, the one name without a dot, → the folder holding `.config`), the project folder holding
 * `.claude/` for its settings files (at the root or below it), and the workspace root (`CLAUDE_PROJECT_DIR`) for
 * `.keel/config.local.json` and your `$KEEL_HOME/config.json`. Derived from the file's path alone;
 * a folder outside the workspace (never found there) falls back to the root.
 */
function layerDir(layer: ConfigLayer, root: string): string {
  let dir = root;
  if (layer.source === "claude") dir = dirname(dirname(layer.file));
  else if (layer.source === "project") dir = /^keelrc/.test(basename(layer.file)) ? dirname(dirname(layer.file)) : dirname(layer.file);
  return inside(root, dir) ? dir : root;
}

/** True when the hook runs under the OS sandbox: the workspace brings it (its config, `.claude/settings*.json`, a workspace plugin) and `sandbox.workspaceCommands` is on. Yours never are. */
export function hookSandboxed(h: CommandHookSpec, host: Host): boolean {
  return h.origin.level === "workspace" && host.sandbox.workspaceCommands;
}

/** Stands in for a Claude Code variable while a line is parsed: word characters only, the same in any quoting. */
function placeholder(name: string): string {
  return `__KEEL_VAR_${name}__`;
}

/**
 * The words (argv) of every simple command a hook's command line runs, with Claude Code's variables
 * expanded as the hook will see them (`"$CLAUDE_PROJECT_DIR"/.claude/hooks/lint.sh`). They are
 * replaced before the line is parsed: a command name from a variable is otherwise not static, and
 * the script of the form Claude Code documents (the line is the script) would not be named.
 */
export function commandWords(h: CommandHookSpec, host: Host, parser: ShellParser): string[][] {
  const vars: Record<string, string> = {
    CLAUDE_PROJECT_DIR: h.origin.projectDir ?? host.workspace.root,
    ...(h.origin.plugin ? { CLAUDE_PLUGIN_ROOT: h.origin.plugin.root } : {}),
  };
  const line = h.command.replace(
    /\$(?:\{(CLAUDE_PROJECT_DIR|CLAUDE_PLUGIN_ROOT)\}|(CLAUDE_PROJECT_DIR|CLAUDE_PLUGIN_ROOT)(?!\w))/g,
    (m, braced?: string, bare?: string) => {
      const name = (braced ?? bare)!;
      return vars[name] === undefined ? m : placeholder(name);
    },
  );
  const expand = (w: string) => {
    // A word with another expansion keeps its source text: its quotes go, as the shell would remove them.
    let word = w.includes("$") ? w.replace(/["']/g, "") : w;
    for (const [name, value] of Object.entries(vars)) word = word.split(placeholder(name)).join(value);
    return word;
  };
  // Assignments (`BASH_ENV=./x.sh bash -c …`, `export NODE_OPTIONS=…`) lead the words, and a file on
  // standard input ends them: `bash < x.sh` runs x.sh as `bash x.sh` would; a shell's here-document is its script.
  const commands = (script: string): string[][] =>
    analyzeShell(script, parser).commands.flatMap((c) => [
      [...(c.assignments ?? []), ...c.argv, ...(c.input !== undefined ? [c.input] : [])].map(expand),
      ...(c.stdinText !== undefined && SHELL.test(c.argv[0]!.split("/").pop()!) ? commands(c.stdinText) : []),
    ]);
  return commands(line);
}

/** Shells, whose standard input is their script (`bash <<'EOF' … EOF`). */
const SHELL = /^(ba|rba|z|da|k|mk|a)?sh$/;
