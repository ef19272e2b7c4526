import type { RunContext } from "./types.js";
import type { AgentRuntime } from "./agent/agent-runtime.js";

/**
 * Interfaces of the services runtimes share through `host.provide(name, ...)` /
 * `host.service(name)`. A consumer must work (with a clear message) when the service is absent.
 */

/**
 * Services by name, typed. Core declares the ones whose interfaces live in core; a runtime adds its
 * own by declaration merging (`declare module "../../core/services.js" { interface KeelServices {…} }`),
 * so `host.service("tasks")` is a `TaskStore` without a cast.
 */
export interface KeelServices {
  /** The agent loop, when a model is configured (workflow `prompt` steps, sub-agents). */
  agent: AgentService;
  /** The agent runtime itself (sessions, approvals), always present once the agent plugin is applied. */
  "agent-runtime": AgentRuntime;
  /** Per-session plugin state. */
  "session-state": SessionStateService;
  /** Managed git worktrees (worktree runtime). */
  worktrees: WorktreeService;
  /** What discovered plugins hand to other runtimes (plugin runtime). */
  plugins: PluginsService;
  /** `/name args` prompts: prompt commands (Claude Code, Gemini CLI) expanded (workflow runtime). */
  "prompt-commands": PromptCommandsService;
  /** Sub-agent types for `delegate_agent` (Claude Code's `agents/*.md`; agent-types runtime). */
  "agent-types": AgentTypesService;
}

/** A prompt whose first word named a prompt command, expanded. */
export interface ExpandedPrompt {
  /** The command's name (without the slash). */
  name: string;
  /** The rendered text the model receives. */
  prompt: string;
  /** The model the command asks for (a model name on the configured endpoint), if any. */
  model?: string;
  /**
   * To call with the session the prompt is added to (AgentRunOptions.onPromptAdded): a skill the user
   * started as `/name` becomes active there, its `allowed-tools` approving as when the model loads it.
   */
  started?: (sessionId: string) => void;
}

/** Expands `/name args` prompts into the text of the prompt command `name`. */
export interface PromptCommandsService {
  /** The expansion of `prompt` when it starts with `/name` of a known command; undefined otherwise. Shell lines and files as the command's rules allow. */
  expand(prompt: string, run: RunContext): Promise<ExpandedPrompt | undefined>;
}

/** A service name. */
export type KeelServiceName = keyof KeelServices;

/** A managed git worktree. */
export interface WorktreeInfo {
  name: string;
  /** Absolute path of the worktree directory (`.keel/worktrees/<name>`). */
  path: string;
  /** Branch created for it: `keel/<name>`. */
  branch: string;
  /** Branch (or commit) it was created from. */
  baseBranch: string;
  baseCommit: string;
}

/** Outcome of finishing a worktree. */
export interface WorktreeExitResult {
  name: string;
  action: "keep" | "merge" | "discard";
  ok: boolean;
  message: string;
  /** Files changed in the worktree relative to its base. */
  changedFiles: string[];
  /** Ref under `refs/keel/discarded/` holding saved work, when discarded with changes. */
  savedRef?: string;
}

/** Provided by the worktree runtime as `"worktrees"`. */
export interface WorktreeService {
  /** Creates a worktree and makes it the host's active directory (one at a time). */
  enter(name: string | undefined, signal?: AbortSignal): Promise<WorktreeInfo>;
  /** Leaves the active worktree with `keep`, `merge` or `discard`. */
  exit(action: "keep" | "merge" | "discard", opts?: { force?: boolean; signal?: AbortSignal }): Promise<WorktreeExitResult>;
  /** The active worktree of this workspace, if any. */
  active(): WorktreeInfo | undefined;
  /** Creates a managed worktree without activating it (sub-agents, workflows). */
  create(name: string, signal?: AbortSignal): Promise<WorktreeInfo>;
  /** Finishes a worktree made by `create`. */
  finish(name: string, action: "keep" | "merge" | "discard", opts?: { force?: boolean; signal?: AbortSignal }): Promise<WorktreeExitResult>;
}

/** A request to run a model turn (workflow `prompt` steps, sub-agents). */
export interface AgentRunRequest {
  prompt: string;
  /** Working directory for the run's tools (e.g. a worktree). */
  cwd?: string;
  maxSteps?: number;
  /** Restrict the visible tools to these names. */
  tools?: string[];
  signal?: AbortSignal;
  parentSessionId?: string;
  /** Approve asks (like --yes) for this run. */
  yes?: boolean;
  /** Model name for this run (on the configured endpoint); default: the configured model. */
  model?: string;
  /** A model reads the result (a step of a workflow a model ran): a pause then says deciding it is the user's, naming no command. */
  readByModel?: boolean;
}

/** Result of an agent run. */
export interface AgentRunResult {
  ok: boolean;
  /** The final answer text (or the error). */
  text: string;
  sessionId: string;
  /** Why the run stopped: `answer`, `max_steps`, `budget`, `error`, `cancelled`, `awaiting_approval`. */
  reason: string;
}

/** Provided by the agent loop as `"agent"` when a model is configured. */
export interface AgentService {
  runPrompt(request: AgentRunRequest): Promise<AgentRunResult>;
}

/** What one discovered plugin hands to other runtimes (MCP servers, workflows). */
export interface PluginHandOff {
  /** Plugin name. */
  plugin: string;
  /** Absolute path of its plugin.json. */
  manifestPath: string;
  /** Plugin root directory (what `${CLAUDE_PLUGIN_ROOT}` / `${PLUGIN_ROOT}` expand to). */
  root: string;
  /** True for plugins under `$KEEL_HOME` (user level, trusted). */
  userLevel: boolean;
  /** `{name: serverConfig}` from `mcpServers` (inline or the referenced JSON file), plugin-root variables expanded. */
  mcpServers: Record<string, unknown>;
  /** File the MCP servers came from (the plugin.json or the referenced file). */
  mcpServersFile?: string;
  /** File each MCP server came from, when they came from more than one (plugin.json, `mcpServers` paths, the plugin-root `.mcp.json`). */
  mcpServerFiles?: Record<string, string>;
  /** Command folders and files (`<root>/commands` and the paths plugin.json's `commands` names), absolute. */
  commands?: string[];
  /** Instruction files the plugin contributes (a Gemini CLI extension's `contextFileName`), absolute, inside `root`. */
  contextFiles?: string[];
  /** `gemini-extension` for a Gemini CLI extension; absent for plugins. */
  kind?: "gemini-extension";
  /** Raw workflow definitions from the `workflows` field (inline list, or loaded from the relative path), unvalidated. */
  workflows: unknown[];
  /** File the workflows came from. */
  workflowsFile?: string;
  /** Claude Code hooks: the events of an inline plugin.json `hooks` object, and hooks files (`hooks/hooks.json`, paths in `hooks`) that exist. */
  claudeHooks?: { inline: Record<string, unknown>; files: string[] };
}

/** Provided by the plugin runtime as `"plugins"` (available from `apply` on, before `registerTools`). */
export interface PluginsService {
  handOffs(): PluginHandOff[];
}

/**
 * Per-session plugin state, provided by the agent loop as `"session-state"`: a plain object
 * plugins may mutate while a session runs; it is saved with the session and restored on resume.
 */
export interface SessionStateService {
  get(sessionId: string): Record<string, unknown> | undefined;
}

/** A sub-agent type `delegate_agent` can run (`agent: name`): a Claude Code agent file, already parsed. */
export interface AgentType {
  /** Unique name (a plugin's type whose name was taken is `plugin:name`). */
  name: string;
  /** When to use it (shown in delegate_agent's description). */
  description: string;
  /** The child's system prompt (the file's body); project instructions are still appended. */
  prompt: string;
  /** keel tool names the child may use (Claude names already mapped); undefined = every tool. */
  tools?: string[];
  /**
   * keel tool names the child may not use (Claude's `disallowedTools`, mapped): removed from `tools`
   * (or from every tool), with the aliases that resolve to them; `mcp__server` removes the server's tools.
   */
  disallowedTools?: string[];
  /** Model name on the configured endpoint; undefined (or a Claude alias in the file) = the parent's model. */
  model?: string;
  /** The agent file (real path). */
  file: string;
  level: "project" | "user";
  /** The plugin that bundles it, if any. */
  plugin?: string;
}

/** Provided by the agent-types runtime as `"agent-types"` (filled from `registerTools` stage 0 on). */
export interface AgentTypesService {
  list(): readonly AgentType[];
}
