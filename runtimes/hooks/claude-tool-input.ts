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
  return CLAUDE_NAMES[keelName] ?? keelName;
}

/** A keel tool input with Claude Code's field names (`read_file` `path` → `file_path`), for a hook's `tool_input`. */
export function toClaudeInput(keelName: string, input: unknown): unknown {
  return rename(input, FIELD_NAMES[keelName]);
}

/** A hook's `updatedInput` (Claude Code field names, or keel's) with keel's field names. */
export function fromClaudeInput(keelName: string, input: unknown): unknown {
  const map = FIELD_NAMES[keelName];
  return rename(input, map && Object.fromEntries(Object.entries(map).map(([k, c]) => [c, k])));
}

function rename(input: unknown, map: Readonly<Record<string, string>> | undefined): unknown {
  if (!map || input === null || typeof input !== "object" || Array.isArray(input)) return input;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) out[map[k] ?? k] = v;
  return out;
}
