import { expect, vi } from "vitest";
import { KEEL_BIN } from "./run-cli.js";
import type { TempWorkspace } from "./temp-workspace.js";
import { startTerminal, type Terminal } from "./tmux.js";

/** How keel ended (its exit code or the signal that killed it) and what it wrote to stderr. */
export interface KeelEnd {
  exit: { code: number | null; signal: string | null };
  stderr: string;
}

/**
 * Starts `keel ...args` in tmux under a small parent, as under a login shell: on the hangup it sends keel SIGHUP (as
 * bash does to its jobs), and it outlives keel to record keel's pid (`keel.pid`), how keel ended (`keel-exit.json`)
 * and what it wrote to stderr (`keel-stderr.txt`), all in `ws`'s root.
 */
export function keelInHangupTerminal(ws: TempWorkspace, args: string[]): Terminal {
  ws.write(
    "watch.mjs",
    [
      'import { spawn } from "node:child_process";',
      'import { openSync, writeFileSync } from "node:fs";',
      'process.on("SIGHUP", () => child.kill("SIGHUP"));',
      'const child = spawn(process.execPath, process.argv.slice(2), { stdio: ["inherit", "inherit", openSync("keel-stderr.txt", "w")] });',
      'writeFileSync("keel.pid", String(child.pid));',
      'child.on("exit", (code, signal) => writeFileSync("keel-exit.json", JSON.stringify({ code, signal })));',
    ].join("\n"),
  );
  return startTerminal([process.execPath, ws.path("watch.mjs"), KEEL_BIN, ...args], { cwd: ws.root, env: ws.env });
}

/** How the keel that keelInHangupTerminal started ended, once it has. */
export async function keelEnd(ws: TempWorkspace): Promise<KeelEnd> {
  await vi.waitFor(() => expect(ws.exists("keel-exit.json")).toBe(true), { timeout: 60_000, interval: 50 });
  return { exit: JSON.parse(ws.read("keel-exit.json")), stderr: ws.read("keel-stderr.txt") };
}
