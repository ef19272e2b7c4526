import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { SandboxSettings } from "./sandbox-config.js";

/**
 * Where your tools keep credentials, under your home folder: what a command the model was talked
 * into running would print into the conversation. Hidden from sandboxed processes unless your
 * config says `"credentials": "visible"`.
 */
export const CREDENTIAL_PATHS: readonly string[] = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".config/gh",
  ".kube",
  ".docker/config.json",
  ".netrc",
  ".git-credentials",
  ".config/git/credentials",
  ".npmrc",
  ".yarnrc.yml",
  ".pypirc",
  ".cargo/credentials.toml",
  ".terraform.d/credentials.tfrc.json",
  ".password-store",
  ".local/share/keyrings",
];

/**
 * Every path a sandboxed process must not read, as real paths (a link is hidden where it leads):
 * keel's own secrets, your credential stores (unless visible), and the configured `denyRead` paths
 * (`~/x` under your home; a relative one under `root`, the workspace or the active worktree, and
 * under `workspaceRoot` too: from a worktree the main checkout's `.env` stays readable otherwise).
 */
export function hiddenPaths(
  settings: SandboxSettings,
  root: string,
  keelSecrets: readonly string[],
  env: NodeJS.ProcessEnv,
  workspaceRoot: string = root,
): string[] {
  const home = env.HOME || homedir();
  const denied = (p: string): string[] =>
    p === "~" ? [home] : p.startsWith("~/") ? [join(home, p.slice(2))] : isAbsolute(p) ? [p] : [resolve(root, p), resolve(workspaceRoot, p)];
  const wanted = [
    ...keelSecrets,
    ...(settings.credentials === "visible" ? [] : CREDENTIAL_PATHS.map((p) => join(home, p))),
    ...settings.denyRead.flatMap(denied),
  ];
  return [...new Set(wanted.map(realOrSelf))];
}

function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
