import { isAbsolute, resolve } from "node:path";
import { hookEnv, inside, outsideRunProblem, realOrSelf, yourOwners, type Host, type ShellParser } from "../../core/index.js";
import type { HookIssue } from "../../manifests/hooks/claude-hooks-schema.js";
import { commandWords, type DeclaredHook } from "./collect-hooks.js";
import { shownCommand } from "./shown-command.js";

/**
 * `hooks` with each hook of a user-level plugin held back (`runs: false`, an error in `issues` naming the plugin,
 * the file and the fix) whose command runs a file outside the plugin's folder that another user could change (see
 * `outsideRunProblem`): keel runs your plugins' hooks as you. The plugin's own files are checked as a whole when it
 * is found (`userTreeProblem`). The shell parser (`parser`, else loaded here) is needed only for a command that may
 * name such a file: most name their scripts through `${CLAUDE_PLUGIN_ROOT}` alone (see `mayRunOutside`). Never throws.
 */
export async function holdBackOutsideScripts(host: Host, hooks: DeclaredHook[], issues: HookIssue[], parser?: ShellParser): Promise<DeclaredHook[]> {
  const owners = yourOwners(process.env);
  if (owners === undefined) return hooks;
  const mine = hooks.filter((h) => h.runs && h.origin.level === "user" && h.origin.plugin && mayRunOutside(h.command, h.origin.plugin.root));
  if (mine.length === 0) return hooks;
  let shell = parser;
  try {
    shell ??= await import("unbash");
  } catch {
    shell = undefined; // cannot be told: each such hook is held back below
  }
  const held = new Map<DeclaredHook, string>();
  for (const h of mine) {
    const plugin = h.origin.plugin!;
    let problem: string | undefined;
    try {
      problem = shell
        ? outsideRunProblem(commandWords(h, host, shell), { root: plugin.root, env: hookEnv(host) }, owners)
        : "keel could not load its shell parser to tell which files it runs";
    } catch (error) {
      problem = `keel could not tell which files it runs (${(error as Error).message})`;
    }
    if (problem === undefined) continue;
    held.set(h, problem);
    issues.push({
      severity: "error",
      file: h.origin.file,
      path: h.path,
      message: `The ${h.event} hook \`${cut(h.command)}\` of the user-level plugin "${plugin.name}" (${plugin.root}) does not run: ${problem}. keel runs your plugins' hooks as you, so another user could have it run their code with your permissions. Make that file, and every folder above it, yours or root's and writable by you only (\`chown\`, \`chmod go-w\`), or move the script into the plugin's folder.`,
    });
  }
  return hooks.map((h) => {
    const problem = held.get(h);
    return problem === undefined ? h : { ...h, runs: false, why: `${problem}: another user could change what it runs` };
  });
}

/**
 * False only when no word of `command` can name a file outside `root`, read loosely (split at blanks, quotes and
 * operators, a word too many only costs a parse): every word that holds `/`, `~` or `$` is an absolute path inside
 * the plugin's folder once `${CLAUDE_PLUGIN_ROOT}` is put in, with no `..` (which goes up from where a link in the
 * plugin really leads). A program found on PATH (`node`, `bash`) and a relative path without `/` (resolved in the
 * session's folder, not told) are no such word.
 */
export function mayRunOutside(command: string, root: string): boolean {
  const line = command.replace(/\$(?:\{CLAUDE_PLUGIN_ROOT\}|CLAUDE_PLUGIN_ROOT(?!\w))/g, root);
  const real = realOrSelf(root);
  return line
    .split(/[\s"'<>;&|()`]+/)
    .some((w) => /[/~$\\]/.test(w) && !(isAbsolute(w) && !/\\|(^|\/)\.\.(\/|$)/.test(w) && (inside(root, resolve(w)) || inside(real, resolve(w)))));
}

/** A hook's command as shown in a diagnostic: its credentials masked (`shownCommand`), on one line, at most 200 characters. */
function cut(command: string): string {
  const line = shownCommand({ command }).replace(/\s+/g, " ");
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
