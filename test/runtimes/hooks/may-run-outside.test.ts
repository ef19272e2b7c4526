import { describe, expect, it } from "vitest";
import { mayRunOutside } from "../../../runtimes/hooks/outside-scripts.js";

// The cheap pre-check that spares loading the shell parser for a user-level plugin's hook: it may say "maybe" too
// often (a parse then decides), never "no" for a line that can run a file outside the plugin.
describe("mayRunOutside: whether a user-level plugin's hook line may run a file outside the plugin", () => {
  const root = "/home/u/.keel/plugins/guard";
  it("no for lines that name only the plugin's own files or programs on PATH", () => {
    for (const line of [
      '"${CLAUDE_PLUGIN_ROOT}/hooks/check.sh"',
      "node ${CLAUDE_PLUGIN_ROOT}/scripts/x.mjs --flag",
      "python3 $CLAUDE_PLUGIN_ROOT/x.py && echo done",
      "true",
      "jq -r .tool_name",
    ])
      expect(mayRunOutside(line, root), line).toBe(false);
  });
  it("maybe for a path elsewhere, one leaving the plugin with .., ~, another variable, or an escape", () => {
    for (const line of [
      "bash ~/bin/x.sh",
      "/opt/tools/y.sh",
      "node ${CLAUDE_PLUGIN_ROOT}/../other/x.js",
      '"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh',
      "bash $HOME/x.sh",
      "bash scripts/x.sh",
      "bash \\/opt/x.sh",
      '"${CLAUDE_PLUGIN_ROOT}"/x.sh',
      "node /home/u/.keel/plugins/guard-other/x.js",
      "bash ${CLAUDE_PLUGIN_ROOT}/lib/../x.sh",
    ])
      expect(mayRunOutside(line, root), line).toBe(true);
  });
});
