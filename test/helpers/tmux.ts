import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterEach } from "vitest";

/** True when the `tmux` binary is installed (.ci/run installs it). */
export const HAS_TMUX = spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;

/** A program running in a real pseudo-terminal (a detached tmux session on a private server). */
export interface Terminal {
  /** Types keys: literal text, or tmux key names (`Enter`, `C-c`, `C-d`). */
  send(...keys: string[]): void;
  /** Types `text` literally, then Enter. */
  line(text: string): void;
  /** Pastes `text` as a terminal does (bracketed, when the program asked for it; newlines arrive as Enter). */
  paste(text: string): void;
  /** Resizes the terminal's window (the program gets SIGWINCH). */
  resize(cols: number, rows: number): void;
  /** The visible screen and scrollback as plain text (no colours). */
  screen(): string;
  /** Where new output will start: pass it as `waitFor`'s `after` to look only at what follows. */
  mark(): number;
  /** Polls the screen until `pattern` shows (a generous deadline: a safety net, not an assertion of time); returns the screen. */
  waitFor(pattern: string | RegExp, opts?: { after?: number; timeoutMs?: number }): Promise<string>;
  /** True once the program has exited (its pane is dead). */
  exited(): boolean;
  /** The program's process id (it is the pane's process: started with `exec`). */
  pid(): number;
  /** Kills the tmux server (and the program, if still running); again, does nothing. */
  close(): void;
}

/**
 * Starts `argv` in `cwd` with exactly `env`, on a terminal of `cols`×`rows`, in a tmux server of
 * its own (its own socket: tests never touch a user's tmux). The pane stays after the program
 * exits, so its last screen can be read.
 */
export function startTerminal(argv: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; cols?: number; rows?: number }): Terminal {
  const socket = `keel-test-${process.pid}-${randomBytes(4).toString("hex")}`;
  const tmux = (...args: string[]) =>
    execFileSync("tmux", ["-u", "-L", socket, ...args], { encoding: "utf8", env: { ...opts.env, TMUX: "", LANG: "C.UTF-8" } });
  const env = Object.entries({ ...opts.env, TERM: "xterm-256color", LANG: "C.UTF-8" })
    .filter(([k, v]) => v !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
    .map(([k, v]) => `${k}=${quote(v!)}`);
  const command = `cd ${quote(opts.cwd)} && exec env -i ${env.join(" ")} ${argv.map(quote).join(" ")}`;
  tmux("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", String(opts.cols ?? 120), "-y", String(opts.rows ?? 50), command);
  tmux("set-option", "-t", "t", "remain-on-exit", "on");
  tmux("set-option", "-t", "t", "history-limit", "5000");
  const screen = () => tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t");
  let closed = false;
  return {
    send: (...keys) => void tmux("send-keys", "-t", "t", ...keys),
    line(text) {
      tmux("send-keys", "-t", "t", "-l", text);
      tmux("send-keys", "-t", "t", "Enter");
    },
    paste(text) {
      tmux("set-buffer", "-b", "paste", "--", text);
      tmux("paste-buffer", "-p", "-d", "-b", "paste", "-t", "t");
    },
    resize: (cols, rows) => void tmux("resize-window", "-t", "t", "-x", String(cols), "-y", String(rows)),
    screen,
    mark: () => screen().trimEnd().length,
    async waitFor(pattern, { after = 0, timeoutMs = 60_000 } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = screen();
        const tail = text.slice(after);
        if (typeof pattern === "string" ? tail.includes(pattern) : pattern.test(tail)) return text;
        if (Date.now() > deadline) throw new Error(`The screen never showed ${String(pattern)}. Screen:\n${text}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    exited: () => tmux("display-message", "-p", "-t", "t", "#{pane_dead}").trim() === "1",
    pid: () => Number(tmux("display-message", "-p", "-t", "t", "#{pane_pid}").trim()),
    close() {
      if (closed) return;
      closed = true;
      try {
        tmux("kill-server");
      } catch {
        // already gone
      }
    },
  };
}

/**
 * After each test, closes the terminal and then removes the workspace `current()` returns (either may be unset), as
 * `closeAfterEach` (test-host.ts) does for a host. Both are idempotent, so a test that opened neither leaves nothing to redo.
 */
export function closeTerminalAfterEach(current: () => { term?: Terminal; ws?: { cleanup(): void } }): void {
  afterEach(() => {
    const { term, ws } = current();
    term?.close();
    ws?.cleanup();
  });
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Polls `check` until it holds (a generous deadline: a safety net, not an assertion of time); the error shows `t`'s screen. */
export async function waitUntil(check: () => boolean, t: Terminal, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out. Screen:\n${t.screen()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the program in `t` has exited (a generous deadline: a safety net, not an assertion of time). */
export async function waitForExit(t: Terminal, timeoutMs = 60_000): Promise<void> {
  try {
    await waitUntil(() => t.exited(), t, timeoutMs);
  } catch {
    throw new Error(`The program did not exit. Screen:\n${t.screen()}`);
  }
}
