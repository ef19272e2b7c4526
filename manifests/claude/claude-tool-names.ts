/** Claude Code tool names in an agent file's `tools`, and the keel tool each stands for. */
export const CLAUDE_AGENT_TOOLS: Readonly<Record<string, string>> = {
  Bash: "bash",
  Read: "read_file",
  Write: "write_file",
  Edit: "edit_file",
  MultiEdit: "edit_file",
  Grep: "grep",
  Glob: "glob",
  LS: "list_dir",
};

/** Claude Code tools keel has no counterpart for (an agent listing one simply does not get it). */
const NO_COUNTERPART = new Set([
  "WebFetch",
  "WebSearch",
  "Task",
  "Agent",
  "NotebookEdit",
  "NotebookRead",
  "TodoWrite",
  "Skill",
  "SlashCommand",
  "BashOutput",
  "KillShell",
  "KillBash",
  "ExitPlanMode",
  "PowerShell",
]);

/**
 * Claude Code tools an agent's `tools` cannot grant (see NO_COUNTERPART) but whose work a keel tool does: a
 * `disallowedTools` entry naming one removes that keel tool, as removing only narrows. An agent told not to start
 * sub-agents (`Task`, `Agent`), run slash commands (`SlashCommand`), load skills (`Skill`) or keep a todo list
 * (`TodoWrite`) gets no delegate_agent, workflow_run, skill or todo_write.
 */
export const CLAUDE_DISALLOW_COUNTERPARTS: Readonly<Record<string, string>> = {
  Task: "delegate_agent",
  Agent: "delegate_agent",
  SlashCommand: "workflow_run",
  Skill: "skill",
  TodoWrite: "todo_write",
};

/** One `tools` entry mapped: the keel name, or why it was dropped. */
export type MappedToolName = { ok: true; name: string } | { ok: false; reason: string };

/**
 * Maps one entry of an agent file's `tools` to a keel tool name: Claude names by the table,
 * `mcp__…` and keel names as written. An entry with a specifier (`Bash(git:*)`) or a Claude tool
 * keel lacks is dropped with the reason (dropping only narrows what the agent may use). Never throws.
 */
export function mapAgentToolName(entry: string): MappedToolName {
  const name = entry.trim();
  if (/[()]/.test(name)) return { ok: false, reason: `"${name}" has a specifier, which agent tool lists do not support; list the plain tool name` };
  const mapped = Object.hasOwn(CLAUDE_AGENT_TOOLS, name) ? CLAUDE_AGENT_TOOLS[name] : undefined;
  if (mapped) return { ok: true, name: mapped };
  if (NO_COUNTERPART.has(name)) return { ok: false, reason: `"${name}" is a Claude Code tool keel has no counterpart for` };
  if (!/^[A-Za-z0-9_.:-]+$/.test(name)) return { ok: false, reason: `"${name}" is not a tool name` };
  return { ok: true, name };
}
