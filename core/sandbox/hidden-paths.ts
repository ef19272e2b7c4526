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
  ".vault-token",
  ".pgpass",
  ".config/hub",
  ".config/glab-cli",
  ".gem/credentials",
  ".m2/settings.xml",
  ".claude/.credentials.json",
  ".codex/auth.json",
  ".gemini/oauth_creds.json",
  // Other agents' files that hold MCP servers' env and headers, or their logins.
  ".claude.json",
  ".cursor/mcp.json",
  ".codeium/windsurf/mcp_config.json",
  ".local/share/opencode/auth.json",
  ".config/goose/secrets.yaml",
  // Their settings files, where MCP servers' env and headers and API keys are written too.
  ".claude/settings.json",
  ".claude/settings.local.json",
  ".gemini/settings.json",
  ".codex/config.toml",
  ".config/Code/User/mcp.json",
];

/** Under `$XDG_CONFIG_HOME` (default `~/.config`), where it is not `~/.config`. */
const XDG_CREDENTIAL_PATHS: readonly string[] = ["gcloud", "gh", "git/credentials", "hub", "glab-cli", "Code/User/mcp.json"];

/**
 * Variables that move a credential store elsewhere (`KUBECONFIG` may list several files), and `SSH_AUTH_SOCK`: an
 * agent's socket signs with your SSH keys for whoever connects (a hidden `~/.ssh` keeps nothing from `git push`
 * through it), and a socket on a read-only mount still accepts connections; gpg-agent's and the keyring's sockets
 * in your session's runtime folder likewise.
 */
function movedCredentialPaths(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const name of [
    "GNUPGHOME",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE",
    "DOCKER_CONFIG",
    "PASSWORD_STORE_DIR",
    "VAULT_TOKEN_FILE",
    "SSH_AUTH_SOCK",
  ]) {
    const v = env[name];
    if (v && isAbsolute(v)) out.push(v);
  }
  for (const file of (env.KUBECONFIG ?? "").split(":")) if (isAbsolute(file)) out.push(file);
  if (env.CARGO_HOME && isAbsolute(env.CARGO_HOME)) out.push(join(env.CARGO_HOME, "credentials.toml"));
  if (env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)) out.push(...XDG_CREDENTIAL_PATHS.map((p) => join(env.XDG_CONFIG_HOME!, p)));
  out.push(...runtimeDirs(env).flatMap((dir) => RUNTIME_AGENTS.map((name) => join(dir, name))));
  return out;
}

/** What under your session's runtime folder lets a client run commands outside the sandbox. */
const RUNTIME_ESCAPES: readonly string[] = ["bus", "systemd", "podman", "docker.sock"];

/** What under your session's runtime folder holds agents that use your keys (gpg-agent, the keyring's SSH agent): hidden with your credential stores. */
const RUNTIME_AGENTS: readonly string[] = ["gnupg", "keyring"];

/** Your session's runtime folder: `$XDG_RUNTIME_DIR`, and `/run/user/<uid>`. */
function runtimeDirs(env: NodeJS.ProcessEnv): string[] {
  const uid = process.getuid?.();
  return [env.XDG_RUNTIME_DIR, uid === undefined ? undefined : `/run/user/${uid}`].filter((p): p is string => !!p && isAbsolute(p));
}

/**
 * Sockets of services that run commands for whoever connects, outside the sandbox: in your session's runtime folder
 * D-Bus (`systemd-run --user` starts anything unconfined), systemd's, podman's and rootless Docker's sockets; the
 * D-Bus session bus where `DBUS_SESSION_BUS_ADDRESS` puts it; and Docker's. A socket on a read-only mount still
 * accepts connections, so they are hidden whatever `credentials` says. So is the X server's cookie (`~/.Xauthority`,
 * `$XAUTHORITY`): the X socket is abstract, reachable while the sandbox shares your network, and an X client that
 * authenticates can type into your terminals.
 */
function escapeSockets(env: NodeJS.ProcessEnv, home: string): string[] {
  const bus = /^unix:path=([^,;]+)/.exec(env.DBUS_SESSION_BUS_ADDRESS ?? "")?.[1];
  return [
    ...runtimeDirs(env).flatMap((dir) => RUNTIME_ESCAPES.map((name) => join(dir, name))),
    ...(bus && isAbsolute(bus) ? [bus] : []),
    join(home, ".Xauthority"),
    ...(env.XAUTHORITY && isAbsolute(env.XAUTHORITY) ? [env.XAUTHORITY] : []),
    "/run/docker.sock",
    "/var/run/docker.sock",
  ];
}

/**
 * Every path a sandboxed process must not read, as real paths (a link is hidden where it leads):
 * keel's own secrets, the sockets of services that would run a command unconfined, your credential stores (unless
 * visible), and the configured `denyRead` paths
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
  const wanted = [
    ...keelSecrets,
    ...escapeSockets(env, home),
    ...(settings.credentials === "visible" ? [] : [...CREDENTIAL_PATHS.map((p) => join(home, p)), ...movedCredentialPaths(env)]),
    ...deniedPaths(settings.denyRead, root, env, workspaceRoot),
  ];
  return [...new Set(wanted.map(realOrSelf))];
}

/** The configured `denyRead` paths as written (`~/x` under your home; a relative one under `root` and under `workspaceRoot`), before links are resolved. */
export function deniedPaths(denyRead: readonly string[], root: string, env: NodeJS.ProcessEnv, workspaceRoot: string = root): string[] {
  const home = env.HOME || homedir();
  return denyRead.flatMap((p) =>
    p === "~" ? [home] : p.startsWith("~/") ? [join(home, p.slice(2))] : isAbsolute(p) ? [p] : [resolve(root, p), resolve(workspaceRoot, p)],
  );
}

function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
