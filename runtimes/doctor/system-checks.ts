import { existsSync } from "node:fs";
import { join } from "node:path";
import { errorMessage, type Host, systemProgram } from "../../core/index.js";
import { check, type DoctorCheck } from "./doctor-check.js";

/** keel needs Node.js 20 or newer. */
export function nodeCheck(version = process.versions.node): DoctorCheck {
  const major = Number(version.split(".")[0]);
  return major >= 20 ? check("node", "ok", `Node.js ${version}`) : check("node", "fail", `Node.js ${version} is too old`, "install Node.js 20 or newer");
}

/** git on PATH (outside the workspace: see systemProgram), and whether the workspace is a repository (worktrees and workflows with `--worktree` need one). Never throws. */
export async function gitCheck(root: string, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<DoctorCheck> {
  const git = systemProgram("git", env, [root]);
  if (!git)
    return check("git", "fail", "git is not on PATH outside the workspace (keel never runs a git found in the workspace)", "install git (apt-get install git)");
  const { execa } = await import("execa");
  const r = await execa(git, ["--version"], { env, reject: false, stdin: "ignore", cancelSignal: signal, timeout: 10_000 });
  if (r.exitCode !== 0)
    return check(
      "git",
      "fail",
      `git is not usable (${String(r.stderr || r.shortMessage || errorMessage(r)).split("\n")[0]})`,
      "install git (apt-get install git)",
    );
  const version = String(r.stdout).trim();
  if (!existsSync(join(root, ".git")))
    return check("git", "warn", `${version}; ${root} is not a git repository`, "git init (keel worktree and --worktree need a repository)");
  return check("git", "ok", version);
}

/**
 * Whether the OS sandbox (bubblewrap) works here, and whether the workspace's hooks and stdio MCP
 * servers run in it (`sandbox.workspaceCommands`): a failure only when the config turns either on. Never throws.
 */
export async function sandboxCheck(host: Host, signal: AbortSignal): Promise<DoctorCheck> {
  const { mode, workspaceCommands, network } = host.sandbox.settings;
  const scope = workspaceCommands
    ? `the workspace's hooks and MCP servers run sandboxed${mode === "off" ? ' ("workspace-write")' : ""}`
    : "the workspace's hooks and MCP servers run unsandboxed";
  // What sandboxed processes reach besides files, when something runs sandboxed.
  const reach =
    mode === "off" && !workspaceCommands
      ? ""
      : `${network ? "network on" : "no network"}, ${host.sandbox.unixSocketsBlocked ? "Unix sockets refused" : 'Unix sockets allowed ("unixSockets": true)'}; `;
  let problem: string | undefined;
  try {
    problem = await host.sandbox.probe(signal);
  } catch (error) {
    problem = errorMessage(error);
  }
  if (!problem) return check("sandbox", "ok", `bubblewrap works (sandbox mode: ${mode}; ${reach}${scope})`);
  if (mode !== "off") return check("sandbox", "fail", `the config asks for sandbox "${mode}", but ${problem}`, 'install bubblewrap, or set "sandbox": "off"');
  if (workspaceCommands)
    return check(
      "sandbox",
      "fail",
      `the config asks for "sandbox": {"workspaceCommands": true}, but ${problem}: the workspace's hooks and MCP servers are refused`,
      'install bubblewrap, or set "sandbox": {"workspaceCommands": false} in $KEEL_HOME/config.json',
    );
  return check("sandbox", "skip", `not available (${problem}); only needed with "sandbox" in the config`);
}
