/**
 * A scripted model's `script.json` that reads `notes.txt`, rewrites `path` with `content` (as a
 * sandboxed command or the model could in a session), reads `notes.txt` again and ends: a hook for
 * `read_file` runs before the rewrite and would run after it.
 */
export function rewriteMidSession(path: string, content: string): { turns: object[] } {
  const read = { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] };
  return { turns: [read, { toolCalls: [{ name: "write_file", arguments: { path, content } }] }, read, { text: "done" }] };
}
