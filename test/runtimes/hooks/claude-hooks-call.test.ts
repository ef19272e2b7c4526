import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel, runKeelProcess } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

/** A hooks object with one command hook for `event` (Claude Code's settings format). */
function hooksOf(event: string, command: string, extra: { matcher?: string; timeout?: number; if?: string } = {}) {
  const { matcher, ...hook } = extra;
  return { [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: "command", command, ...hook }] }] };
}

/** A node hook script: reads its stdin JSON into `input`, then runs `body`. */
function nodeHook(body: string): string {
  return `let raw = ""; process.stdin.on("data", (d) => (raw += d)); process.stdin.on("end", () => { const input = JSON.parse(raw); ${body} });`;
}

const call = (args: string[]) => runKeel(["--json", ...args], { cwd: ws.root, env: ws.env });

describe("Claude Code PreToolUse / PostToolUse hooks run inside the tool pipeline (keel call)", () => {
  it("a Bash-matched hook that exits 2 blocks the call at phase hook, its stderr in the observation; it got Claude Code's stdin JSON", async () => {
    ws = makeWorkspace({ "keep.txt": "x" });
    ws.write(
      "guard.cjs",
      nodeHook(
        `require("node:fs").writeFileSync(process.env.CLAUDE_PROJECT_DIR + "/seen.json", raw); if (input.tool_input.command.includes("rm ")) { process.stderr.write("rm is not allowed here"); process.exit(2); }`,
      ),
    );
    ws.write(".claude/settings.json", { hooks: hooksOf("PreToolUse", 'node "$CLAUDE_PROJECT_DIR/guard.cjs"', { matcher: "Bash" }) });
    const r = await call(["--trust", "--yes", "call", "bash", "--input", JSON.stringify({ command: "rm keep.txt" })]);
    expect(r.exitCode).toBe(1);
    const obs = r.json();
    expect(obs).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked" });
    expect(obs.content).toContain("rm is not allowed here");
    expect(ws.exists("keep.txt")).toBe(true);
    const seen = JSON.parse(ws.read("seen.json"));
    expect(seen).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm keep.txt" }, cwd: ws.root });
    expect(typeof seen.session_id).toBe("string");
    // the hook run is an event of the call
    const events = readFileSync(ws.path(".keel", "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const hookEvent = events.find((e) => e.type === "command_hook");
    expect(hookEvent).toMatchObject({ event: "PreToolUse", exitCode: 2, decision: "block", callId: obs.metadata.callId, tool: "bash" });
    // a command the hook lets through runs
    const ok = await call(["--trust", "--yes", "call", "bash", "--input", JSON.stringify({ command: "echo fine" })]);
    expect(ok.json()).toMatchObject({ ok: true, phase: "done" });
    // keel hooks shows the hook, that it runs, and its last outcome
    const listed = (await call(["--trust", "hooks"])).json();
    expect(listed.hooks).toEqual([
      expect.objectContaining({ event: "PreToolUse", matcher: "Bash", runs: true, level: "workspace", last: expect.objectContaining({ exitCode: 0 }) }),
    ]);
  });

  it("permissionDecision deny blocks; updatedInput changes the executed input (Claude field names mapped back)", async () => {
    ws = makeWorkspace({
      "deny.cjs": nodeHook(
        `if (input.tool_name === "Read") console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "secrets stay closed: " + input.tool_input.file_path } }));`,
      ),
      "rewrite.cjs": nodeHook(
        `console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { command: "echo rewritten > out.txt" } } }));`,
      ),
      "secret.txt": "s3cret",
    });
    ws.write("keel.config.json", {
      hooks: {
        ...hooksOf("PreToolUse", 'node "$CLAUDE_PROJECT_DIR/deny.cjs"', { matcher: "Read|Write" }),
      },
    });
    ws.write(".claude/settings.local.json", { hooks: hooksOf("PreToolUse", 'node "$CLAUDE_PROJECT_DIR/rewrite.cjs"', { matcher: "bash" }) });
    const denied = await call(["--trust", "call", "read_file", "--input", JSON.stringify({ path: "secret.txt" })]);
    expect(denied.json()).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked" });
    expect(denied.json().content).toContain("secrets stay closed: secret.txt");
    expect(denied.json().content).not.toContain("s3cret");
    const rewritten = await call(["--trust", "--yes", "call", "bash", "--input", JSON.stringify({ command: "echo original > out.txt" })]);
    expect(rewritten.json()).toMatchObject({ ok: true });
    expect(ws.read("out.txt").trim()).toBe("rewritten");
  });

  it("an updatedInput that breaks the tool's schema is refused before anything runs", async () => {
    ws = makeWorkspace({
      "bad.cjs": nodeHook(`console.log(JSON.stringify({ hookSpecificOutput: { updatedInput: { command: 42 } } }));`),
    });
    ws.write(".claude/settings.json", { hooks: hooksOf("PreToolUse", 'node "$CLAUDE_PROJECT_DIR/bad.cjs"') });
    const r = await call(["--trust", "--yes", "call", "bash", "--input", JSON.stringify({ command: "touch made.txt" })]);
    expect(r.json()).toMatchObject({ ok: false, phase: "hook", code: "schema_invalid" });
    expect(ws.exists("made.txt")).toBe(false);
  });

  it("a hook's allow approves an ask as an approval would, but never beats a deny rule; its ask needs approval", async () => {
    ws = makeWorkspace({
      "allow.cjs": nodeHook(`console.log(JSON.stringify({ hookSpecificOutput: { permissionDecision: "allow", permissionDecisionReason: "fine by me" } }));`),
      "ask.cjs": nodeHook(`console.log(JSON.stringify({ hookSpecificOutput: { permissionDecision: "ask" } }));`),
    });
    ws.writeUserConfig({
      permissions: { deny: ["bash(touch denied.txt)"] },
      hooks: { ...hooksOf("PreToolUse", `node "${ws.path("allow.cjs")}"`, { matcher: "Bash" }), ...hooksOf("PostToolUse", "true") },
    });
    // bash asks by default: the hook's allow approves it without --yes
    const allowed = await call(["call", "bash", "--input", JSON.stringify({ command: "touch allowed.txt" })]);
    expect(allowed.json()).toMatchObject({ ok: true });
    expect(ws.exists("allowed.txt")).toBe(true);
    // a deny rule wins over the hook's allow (and over --yes)
    const denied = await call(["--yes", "call", "bash", "--input", JSON.stringify({ command: "touch denied.txt" })]);
    expect(denied.json()).toMatchObject({ ok: false, phase: "permission", code: "permission_denied" });
    expect(ws.exists("denied.txt")).toBe(false);
    // a call keel cannot check exactly (an ask rule exists, and the command's name is known only once it runs) needs
    // an explicit answer: neither the hook's allow nor --yes approves it
    ws.writeUserConfig({ permissions: { ask: ["bash(rm *)"] }, hooks: hooksOf("PreToolUse", `node "${ws.path("allow.cjs")}"`, { matcher: "Bash" }) });
    for (const yes of [[], ["--yes"]]) {
      const strict = await call([...yes, "call", "bash", "--input", JSON.stringify({ command: "$(echo touch) strict.txt" })]);
      expect(strict.json(), yes.join("")).toMatchObject({ ok: false, phase: "permission", code: "approval_required" });
    }
    expect(ws.exists("strict.txt")).toBe(false);
    // a hook's ask turns an allowed read into one that needs approval
    ws.writeUserConfig({ hooks: hooksOf("PreToolUse", `node "${ws.path("ask.cjs")}"`, { matcher: "Read" }) });
    const asked = await call(["call", "read_file", "--input", JSON.stringify({ path: "allow.cjs" })]);
    expect(asked.json()).toMatchObject({ ok: false, phase: "permission", code: "approval_required" });
  });

  it("hooks of an untrusted workspace do not run (a diagnostic says how to trust); user-level hooks do", async () => {
    ws = makeWorkspace({ "keep.txt": "x" });
    ws.write(".claude/settings.json", { hooks: hooksOf("PreToolUse", "echo workspace-hook >&2; exit 2", { matcher: "Bash" }) });
    ws.write("plugins/guard/.claude-plugin/plugin.json", { name: "guard" });
    ws.write("plugins/guard/hooks/hooks.json", { hooks: hooksOf("PreToolUse", "echo plugin-hook >&2; exit 2") });
    const r = await call(["--yes", "call", "bash", "--input", JSON.stringify({ command: "echo ran" })]);
    expect(r.json()).toMatchObject({ ok: true, phase: "done" });
    // the user is told the hooks that would have fired did not run, and how to trust
    expect(r.stderr).toContain(`hooks in ${ws.path(".claude", "settings.json")} did not run`);
    expect(r.stderr).toContain("keel trust");
    const listed = (await call(["hooks"])).json();
    expect(listed.hooks).toHaveLength(2);
    for (const h of listed.hooks) expect(h).toMatchObject({ runs: false, why: expect.stringContaining("not trusted") });
    expect(listed.diagnostics.map((d: { message: string }) => d.message).join("\n")).toContain("keel trust");
    // a user-level hook runs in the same untrusted workspace
    ws.writeUserConfig({ hooks: hooksOf("PreToolUse", "echo user-hook says no >&2; exit 2", { matcher: "Bash" }) });
    const blocked = await call(["--yes", "call", "bash", "--input", JSON.stringify({ command: "echo ran" })]);
    expect(blocked.json()).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked" });
    expect(blocked.json().content).toContain("user-hook says no");
    expect(blocked.json().content).not.toContain("workspace-hook");
  });

  it("your hooks' last outcomes are kept under $KEEL_HOME: a .keel/state/hooks.json the repository committed cannot say your guard ran", async () => {
    ws = makeWorkspace({ "keep.txt": "x" });
    ws.writeUserConfig({ hooks: hooksOf("PreToolUse", "exit 0", { matcher: "Read" }) });
    const [mine] = (await call(["hooks"])).json().hooks;
    expect(mine).toMatchObject({ level: "user", runs: true });
    expect(mine.last).toBeUndefined();
    const key = `${mine.file}#${mine.path}`;
    // The repository's record: your guard "blocked" a call here, though it never ran.
    const forged = { event: "PreToolUse", at: "2026-01-01T00:00:00.000Z", exitCode: 2, decision: "block", durationMs: 3 };
    ws.write(".keel/state/hooks.json", { [key]: forged });
    expect((await call(["hooks"])).json().hooks[0].last).toBeUndefined();
    expect((await call(["call", "read_file", "--input", JSON.stringify({ path: "keep.txt" })])).json()).toMatchObject({ ok: true });
    expect((await call(["hooks"])).json().hooks[0].last).toMatchObject({ decision: "none", exitCode: 0 });
    // Recorded where the repository cannot write, never into its .keel/.
    expect(JSON.parse(ws.read(".keel/state/hooks.json"))).toEqual({ [key]: forged });
    const home = join(ws.keelHome, "state", "hooks");
    expect(readFileSync(join(home, readdirSync(home)[0]!), "utf8")).toContain(key);
  });

  it("a recorded outcome not as keel writes it (a committed or hand-edited hooks.json) reads as none: keel hooks shows no [object Object]", async () => {
    ws = makeWorkspace({ ".claude/settings.json": { hooks: hooksOf("PreToolUse", "true", { matcher: "Bash" }) } });
    const [hook] = (await call(["hooks"])).json().hooks;
    const key = `${hook.file}#${hook.path}`;
    const good = { event: "PreToolUse", at: "2026-01-01T00:00:00.000Z", exitCode: null, decision: "none", durationMs: 3 };
    ws.write(".keel/state/hooks.json", { [key]: { ...good, decision: { block: true }, exitCode: "2", error: ["x"] } });
    expect((await call(["hooks"])).json().hooks[0].last).toBeUndefined(); // old code: the record as it was
    const table = await runKeel(["hooks"], { cwd: ws.root, env: ws.env });
    expect(table.stdout).toContain("never ran here");
    expect(table.stdout).not.toContain("[object Object]");
    ws.write(".keel/state/hooks.json", { [key]: good });
    expect((await call(["hooks"])).json().hooks[0].last).toEqual(good);
  });

  it("a recorded error is shown bounded and on one line: a committed hooks.json cannot print megabytes or terminal escapes", async () => {
    ws = makeWorkspace({ ".claude/settings.json": { hooks: hooksOf("PreToolUse", "true", { matcher: "Bash" }) } });
    const [hook] = (await call(["hooks"])).json().hooks;
    const key = `${hook.file}#${hook.path}`;
    const error = `first\u001b[2J\nsecond\u202e ${"x".repeat(2_000_000)}`;
    ws.write(".keel/state/hooks.json", {
      [key]: { event: "PreToolUse", at: "2026-01-01T00:00:00.000Z", exitCode: 1, decision: "error", durationMs: 3, error },
    });
    const shown: string = (await call(["hooks"])).json().hooks[0].last.error;
    expect([...shown].length).toBe(500); // old code: all 2 MB of it
    expect(shown.startsWith("first [2J second ")).toBe(true);
    expect(shown.endsWith("x…")).toBe(true);
    const table = await runKeel(["hooks"], { cwd: ws.root, env: ws.env });
    expect(table.stdout.length).toBeLessThan(5_000);
    expect(table.stdout).not.toContain("\u001b");
  });

  it("an untrusted hook's matcher is never evaluated: a catastrophically backtracking regex cannot hang a tool call", async () => {
    ws = makeWorkspace({ "keep.txt": "x" });
    // 40 overlapping alternatives under a star, then a letter no tool name has: exponential backtracking
    // on a name such as "list_dir" (minutes to hours) if it were ever run with a backtracking engine.
    const alternatives = Array.from({ length: 40 }, (_, i) => `[a-z_${i % 10}${String.fromCharCode(65 + (i % 26))}]`);
    ws.write(".claude/settings.json", { hooks: hooksOf("PreToolUse", "echo never", { matcher: `(?:${alternatives.join("|")})*Z` }) });
    // a separate process: a hang there cannot block this test worker (the run's safety-net timeout fails the test)
    const r = await runKeelProcess(["--json", "call", "list_dir", "--input", JSON.stringify({ path: "." })], { cwd: ws.root, env: ws.env, timeout: 60_000 });
    expect(r.exitCode).toBe(0);
    expect(r.json()).toMatchObject({ ok: true, phase: "done" });
    expect(r.stderr).toContain(`hooks in ${ws.path(".claude", "settings.json")} did not run`);
  });

  it("a plugin hook (hooks/hooks.json, CLAUDE_PLUGIN_ROOT) runs when trusted; the `if` filter selects commands; a hanging hook is killed at its timeout and the call goes on", async () => {
    ws = makeWorkspace({});
    ws.write("plugins/guard/.claude-plugin/plugin.json", { name: "guard" });
    ws.write("plugins/guard/hooks/block.sh", 'echo "blocked by $(basename "$CLAUDE_PLUGIN_ROOT")" >&2\nexit 2\n');
    ws.write("plugins/guard/hooks/hooks.json", {
      hooks: {
        PreToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command: 'sh "${CLAUDE_PLUGIN_ROOT}/hooks/block.sh"', if: "Bash(git push:*)" }] },
          { matcher: "Bash", hooks: [{ type: "command", command: "sleep 30", timeout: 1 }] },
        ],
      },
    });
    const push = await call(["--trust", "--yes", "call", "bash", "--input", JSON.stringify({ command: "git push origin main" })]);
    expect(push.json()).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked" });
    expect(push.json().content).toContain("blocked by guard");
    const other = await call(["--trust", "--yes", "call", "bash", "--input", JSON.stringify({ command: "echo other" })]);
    expect(other.json()).toMatchObject({ ok: true, phase: "done" });
    // the hanging hook was killed: a non-blocking error, shown to the user, recorded as its last outcome
    expect(other.stderr).toContain("timed out");
    const listed = (await call(["--trust", "hooks"])).json();
    const sleeper = listed.hooks.find((h: { command: string }) => h.command === "sleep 30");
    expect(sleeper.last).toMatchObject({ decision: "error", exitCode: null });
    expect(sleeper.last.error).toContain("timed out");
  });

  it("a user-level plugin's inline plugin.json hooks run in an untrusted workspace; PostToolUse exit 2 stderr is appended to the result", async () => {
    ws = makeWorkspace({});
    const pluginDir = join(ws.keelHome, "plugins", "audit");
    mkdirSync(pluginDir, { recursive: true });
    writeFileSync(
      join(pluginDir, "plugin.json"),
      JSON.stringify({
        name: "audit",
        hooks: {
          beforePrompt: "keel lifecycle text, not a command",
          PostToolUse: [{ matcher: "bash", hooks: [{ type: "command", command: 'echo "audited by $(basename "$CLAUDE_PLUGIN_ROOT")" >&2; exit 2' }] }],
        },
      }),
    );
    const r = await call(["--yes", "call", "bash", "--input", JSON.stringify({ command: "echo payload" })]);
    const obs = r.json();
    expect(obs).toMatchObject({ ok: true, phase: "done" });
    expect(obs.content).toContain("payload");
    expect(obs.content).toContain("PostToolUse hook feedback: audited by audit");
    const listed = (await call(["hooks"])).json();
    expect(listed.hooks).toEqual([expect.objectContaining({ event: "PostToolUse", level: "user", plugin: "audit", runs: true })]);
  });
});

describe("hook matchers read as Claude Code reads them", () => {
  it("a matcher with regex characters is searched anywhere in the tool name (a guard `^Edi|mcp__.*__delete` covers Edit); a plain name still matches whole", async () => {
    ws = makeWorkspace({ "a.txt": "one\n" });
    ws.write("block.cjs", 'process.stderr.write("edits are frozen"); process.exit(2);');
    ws.write(".claude/settings.json", {
      hooks: {
        PreToolUse: [
          { matcher: "^Edi|mcp__.*__delete", hooks: [{ type: "command", command: 'node "$CLAUDE_PROJECT_DIR/block.cjs"' }] },
          // a plain name: exactly Writ, so never Write
          { matcher: "Writ", hooks: [{ type: "command", command: 'node "$CLAUDE_PROJECT_DIR/block.cjs"' }] },
        ],
      },
    });
    const read = await call(["--trust", "--yes", "call", "read_file", "--input", JSON.stringify({ path: "a.txt" })]);
    expect(read.exitCode).toBe(0);
    const edit = await call(["--trust", "--yes", "call", "edit_file", "--input", JSON.stringify({ path: "a.txt", old_string: "one", new_string: "two" })]);
    expect(edit.json()).toMatchObject({ ok: false, phase: "hook", code: "tool_blocked" });
    expect(edit.json().content).toContain("edits are frozen");
    expect(ws.read("a.txt")).toBe("one\n");
    const write = await call(["--trust", "--yes", "call", "write_file", "--input", JSON.stringify({ path: "b.txt", content: "b" })]);
    expect(write.json()).toMatchObject({ ok: true, phase: "done" });
  });
});
