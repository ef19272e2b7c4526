import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { runKeel, type CliRun } from "../helpers/run-cli.js";
import type { TempWorkspace } from "../helpers/temp-workspace.js";

/** Runs `keel --json ...args` in the workspace with its private KEEL_HOME. */
export function keelJson(ws: TempWorkspace, args: string[], cwd = ws.root): Promise<CliRun> {
  return runKeel(["--json", ...args], { cwd, env: ws.env });
}

/** Writes a JSON file at an absolute path, creating folders. */
export function writeJson(path: string, value: unknown): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  return path;
}

/** Writes `$KEEL_HOME/plugins/<dir>/plugin.json`. */
export function writeUserPlugin(ws: TempWorkspace, dir: string, manifest: unknown): string {
  return writeJson(join(ws.keelHome, "plugins", dir, "plugin.json"), manifest);
}
