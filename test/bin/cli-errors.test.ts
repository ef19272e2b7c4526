import { afterEach, describe, expect, it } from "vitest";
import { execaCommand } from "execa";
import { KEEL_BIN, runKeel, runKeelProcess } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

describe("configuration and usage errors from the CLI", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });

  it("an unparseable keel.config.json stops the command with exit 2 naming the file; nothing runs", async () => {
    ws = makeWorkspace({ "keel.config.json": '{"permissions":{"deny":["bash"]},}' });
    const r = await runKeel(["--yes", "call", "bash", "--input", '{"command":"echo RAN > ran.txt"}'], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(ws.path("keel.config.json"));
    expect(ws.exists("ran.txt")).toBe(false);
    expect(ws.read("keel.config.json")).toBe('{"permissions":{"deny":["bash"]},}');
  });

  it("--cwd that does not exist or is a file is a usage error (exit 2), without a stack trace", async () => {
    ws = makeWorkspace({ "file.txt": "x" });
    const missing = await runKeel(["--cwd", ws.path("nope"), "tools"], { cwd: ws.root, env: ws.env });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("does not exist");
    expect(missing.stderr).not.toContain("    at ");
    const file = await runKeel(["--cwd", ws.path("file.txt"), "tools"], { cwd: ws.root, env: ws.env });
    expect(file.exitCode).toBe(2);
    expect(file.stderr).toContain("not a directory");
  });

  it("output piped into a reader that closes early ends quietly (no EPIPE stack trace)", async () => {
    ws = makeWorkspace({ "keel.config.json": { output: { maxChars: 2_000_000 } } });
    const big = JSON.stringify({ command: "seq 1 300000" });
    const r = await execaCommand(`node ${KEEL_BIN} --yes --json call bash --input '${big}' | head -c 10`, {
      shell: true,
      cwd: ws.root,
      env: ws.env,
      reject: false,
    });
    expect(r.stdout.length).toBe(10);
    expect(String(r.stderr)).not.toContain("EPIPE");
  });

  it("with --json every usage error is the same {error} object on stdout: commander's (unknown command, option, value) as keel's own", async () => {
    ws = makeWorkspace();
    const cases = [
      ["--json", "tols"],
      ["tools", "--json", "extra"],
      ["--json", "task", "list", "--status", "bogus"],
      ["--json", "call"],
      ["--json", "workflow", "run", "nope"],
    ];
    for (const args of cases) {
      const r = await runKeel(args, { cwd: ws.root, env: ws.env });
      expect(r.exitCode, args.join(" ")).toBe(2);
      expect(r.json(), args.join(" ")).toEqual({ error: { type: "UsageError", message: expect.any(String) } });
    }
    const unknown = await runKeel(["--json", "tols"], { cwd: ws.root, env: ws.env });
    expect(unknown.json().error.message).toBe("unknown command 'tols' (Did you mean tools?)");
    expect(unknown.stderr).toBe(""); // told once, on stdout, as keel's own errors are
    // On stderr, commander's usage errors start as keel's own do.
    const option = await runKeel(["task", "list", "--bogus"], { cwd: ws.root, env: ws.env });
    expect(option.exitCode).toBe(2);
    expect(option.stderr.startsWith("keel: unknown option '--bogus'"), option.stderr).toBe(true);
  });

  it("a real process: with --json a usage error, commander's or keel's own, is only the {error} object on stdout; without, only `keel: …` on stderr", async () => {
    ws = makeWorkspace();
    const cases: [string[], string][] = [
      [["tools", "--bogus"], "unknown option '--bogus'"], // commander: unknown option
      [["call"], "missing required argument 'tool'"], // commander: missing argument
      [["tols"], "unknown command 'tols'"], // commander: unknown command
      [["call", "read_file", "--input", "{"], "--input is not valid JSON"], // keel's own
    ];
    for (const [args, message] of cases) {
      const json = await runKeelProcess(["--json", ...args], { cwd: ws.root, env: ws.env });
      expect(json.exitCode, args.join(" ")).toBe(2);
      expect(json.json(), args.join(" ")).toEqual({ error: { type: "UsageError", message: expect.stringContaining(message) } });
      expect(json.stderr, args.join(" ")).toBe("");
      const text = await runKeelProcess(args, { cwd: ws.root, env: ws.env });
      expect(text.exitCode, args.join(" ")).toBe(2);
      expect(text.stdout, args.join(" ")).toBe("");
      expect(text.stderr.startsWith(`keel: ${message}`), text.stderr).toBe(true);
    }
  });
});
