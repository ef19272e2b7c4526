/** keel's built-in tools and Claude Code's names for them. */
const CLAUDE_NAMES: Readonly<Record<string, string>> = {
  bash: "Bash",
  read_file: "Read",
  write_file: "Write",
  edit_file: "Edit",
  grep: "Grep",
  glob: "Glob",
  list_dir: "LS",
};

/** keel input fields whose Claude Code names differ, per tool (keel → Claude). */
const FIELD_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  read_file: { path: "file_path" },
  write_file: { path: "file_path" },
  edit_file: { path: "file_path" },
  bash: { timeout_ms: "timeout" },
  grep: { ignore_case: "-i" },
};

/** Claude Code's name for a keel tool (`bash` → `Bash`); MCP and other tools keep their name. */
export function claudeToolName(keelName: string): string {
  // Own keys only: a plugin's tool may be named `toString` (its hooks got no tool_name).
  return (Object.hasOwn(CLAUDE_NAMES, keelName) && CLAUDE_NAMES[keelName]) || keelName;
}

/** A keel tool input with Claude Code's field names (`read_file` `path` → `file_path`), for a hook's `tool_input`. */
export function toClaudeInput(keelName: string, input: unknown): unknown {
  return rename(input, fieldNames(keelName));
}

/** A hook's `updatedInput` (Claude Code field names, or keel's) with keel's field names. */
export function fromClaudeInput(keelName: string, input: unknown): unknown {
  const map = fieldNames(keelName);
  return rename(input, map && Object.fromEntries(Object.entries(map).map(([k, c]) => [c, k])));
}

function rename(input: unknown, map: Readonly<Record<string, string>> | undefined): unknown {
  if (!map || input === null || typeof input !== "object" || Array.isArray(input)) return input;
  // Own keys, as data (a field named `constructor` or `__proto__` is a field like any other).
  return Object.fromEntries(Object.entries(input).map(([k, v]) => [(Object.hasOwn(map, k) && map[k]) || k, v]));
}

function fieldNames(keelName: string): Readonly<Record<string, string>> | undefined {
  return Object.hasOwn(FIELD_NAMES, keelName) ? FIELD_NAMES[keelName] : undefined;
}
