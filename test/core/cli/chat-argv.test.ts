import { describe, expect, it } from "vitest";
import { chatArgv } from "../../../core/cli/chat-argv.js";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace } from "../../helpers/temp-workspace.js";

describe("which command lines open the interactive session", () => {
  it("keel alone on a terminal and keel --resume ID become keel chat; commands, --help and non-terminals are left alone", () => {
    expect(chatArgv([], true)).toEqual(["chat"]);
    expect(chatArgv(["--cwd", "sub", "--yes"], true)).toEqual(["--cwd", "sub", "--yes", "chat"]);
    expect(chatArgv(["--resume", "s-1"], false)).toEqual(["chat", "--resume", "s-1"]);
    expect(chatArgv(["--trust", "--resume", "s-1"], true)).toEqual(["--trust", "chat", "--resume", "s-1"]);
    expect(chatArgv([], false)).toEqual([]);
    expect(chatArgv(["--help"], true)).toEqual(["--help"]);
    expect(chatArgv(["run", "--resume", "s-1"], true)).toEqual(["run", "--resume", "s-1"]);
  });

  it("keel --model M opens the interactive session with that model (chat's own option), on a terminal or not", async () => {
    expect(chatArgv(["--model", "m1"], true)).toEqual(["chat", "--model", "m1"]);
    expect(chatArgv(["--yes", "--model=m1"], true)).toEqual(["--yes", "chat", "--model=m1"]);
    expect(chatArgv(["--model", "m1", "--resume", "s-1"], false)).toEqual(["chat", "--resume", "s-1", "--model", "m1"]);
    expect(chatArgv(["run", "--model", "m1", "x"], true)).toEqual(["run", "--model", "m1", "x"]);
    const ws = makeWorkspace();
    try {
      const r = await runKeel(["--model", "m1"], { cwd: ws.root, env: ws.env });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain("keel chat needs a terminal");
      expect(r.stderr).not.toContain("unknown option");
    } finally {
      ws.cleanup();
    }
  });

  it("keel without a terminal still prints help and exits 0; keel chat without one says to use keel run (exit 2)", async () => {
    const ws = makeWorkspace();
    try {
      const help = await runKeel([], { cwd: ws.root, env: ws.env });
      expect(help.exitCode).toBe(0);
      expect(help.stdout + help.stderr).toContain("Usage: keel");
      const chat = await runKeel(["--resume", "s-1"], { cwd: ws.root, env: ws.env });
      expect(chat.exitCode).toBe(2);
      expect(chat.stderr).toContain('keel chat needs a terminal (stdin and stdout a TTY); in scripts use keel run "PROMPT"');
    } finally {
      ws.cleanup();
    }
  });
});
