import { z } from "zod";
import { PATTERN_CHARS, SANDBOX_MODES } from "../sandbox/sandbox-config.js";

/** `sandbox` in keel config: a mode, or `{mode, network, denyRead, credentials, workspaceCommands, unixSockets}` (sandbox-config.ts's isSandboxValue accepts the same values). */
const SandboxMode = z.enum(SANDBOX_MODES);
const DenyReadPath = z
  .string()
  .trim()
  .min(1)
  .refine((p) => !PATTERN_CHARS.test(p), "denyRead takes paths, not patterns: the sandbox hides each path it names, so list them one by one");
const SandboxConfig = z.union([
  SandboxMode,
  z
    .object({
      mode: SandboxMode.optional(),
      network: z.boolean().optional(),
      denyRead: z.array(DenyReadPath).optional(),
      credentials: z.enum(["hidden", "visible"]).optional(),
      workspaceCommands: z.boolean().optional(),
      unixSockets: z.boolean().optional(),
    })
    .strict(),
]);

/** A permission rule: a tool-name glob, optionally with an argument specifier: `bash(git status*)`. */
export const PermissionRule = z
  .string()
  .trim()
  .regex(/^[^\s()]+(\(.*\))?$/, "a rule is a tool-name glob optionally followed by (argument pattern), e.g. bash(git status*)");

/** `permissions` section: deny beats ask beats allow. */
export const PermissionsConfig = z
  .object({
    allow: z.array(PermissionRule).optional(),
    ask: z.array(PermissionRule).optional(),
    deny: z.array(PermissionRule).optional(),
  })
  .passthrough();

/** `model` section (agent loop). */
export const ModelConfig = z
  .object({
    name: z.string().optional(),
    baseUrl: z.string().optional(),
    apiKeyEnv: z.string().optional(),
    contextWindow: z.number().int().positive().optional(),
    maxOutputTokens: z.number().int().positive().optional(),
    timeoutMs: z.number().int().positive().optional(),
    /** Longest silence of a response's body; there is no "off" (0 is refused: a stalled endpoint would hang keel). */
    streamIdleTimeoutMs: z
      .number()
      .int()
      .positive(
        "must be a positive number of milliseconds (there is no off switch: for a model that thinks long without sending anything, set a larger value such as 1800000)",
      )
      .optional(),
    /** Retries of a model call that failed before any answer was shown (capped at 10; a negative value is the default). */
    maxRetries: z.number().optional(),
    /** false for servers without streaming (`"no"` would have counted as true). */
    stream: z.boolean().optional(),
    /** Extra HTTP headers for the model endpoint (strings only; a workspace's need trust). */
    headers: z.record(z.string(), z.string()).optional(),
  })
  .passthrough();

/** `agent` section: the agent loop's limits and prompt (read by agent-settings.ts; validated with the rest, so a bad value names its file). */
export const AgentConfig = z
  .object({
    maxSteps: z.number().int().positive().optional(),
    systemPrompt: z.string().optional(),
    /** Share of the context window tool definitions may take before MCP and plugin tools are deferred behind tool_search. */
    toolSearchShare: z.number().min(0).max(1).optional(),
    /** Context share that triggers pruning of old tool outputs. */
    pruneAt: z.number().min(0).max(1).optional(),
    /** Context share that triggers compaction. */
    compactAt: z.number().min(0).max(1).optional(),
    budgets: z
      .object({
        maxTokens: z.number().int().positive().optional(),
        maxToolCalls: z.number().int().positive().optional(),
        maxModelCalls: z.number().int().positive().optional(),
      })
      .optional(),
  })
  .passthrough();

/** keel's model key variable by convention: never passed to commands, whatever `commandEnv.pass` says. */
const MODEL_KEY_VAR = "OPENAI_API_KEY";
const NEVER_PASSED = "is keel's model key: it never reaches commands, even when listed. Remove it from the list";

/** A variable name, or a pattern with `*` (`NPM_*`), let through to commands run for the model. */
const PassPattern = z
  .string()
  .trim()
  .regex(/^[^\s=]+$/, 'a variable name, or a pattern with *, such as "GH_TOKEN" or "NPM_*"')
  .refine((p) => p !== MODEL_KEY_VAR, `${MODEL_KEY_VAR} ${NEVER_PASSED}`);

/** `commandEnv`: which secret-looking variables commands run for the model still get. */
const CommandEnvConfig = z.object({ pass: z.array(PassPattern).optional() }).strict();

/** keel's own config schema. Unknown top-level keys are kept (other tools share these files). */
export const KeelConfigSchema = z
  .object({
    permissions: PermissionsConfig.optional(),
    model: z.union([z.string(), ModelConfig]).optional(),
    output: z.object({ maxChars: z.number().int().positive().optional() }).passthrough().optional(),
    sandbox: SandboxConfig.optional(),
    agent: AgentConfig.optional(),
    commandEnv: CommandEnvConfig.optional(),
    /** Claude Code command hooks (`{"PreToolUse": [{"matcher", "hooks": [...]}]}`); each hook is checked by the hooks runtime, which names file and path. */
    hooks: z.record(z.string(), z.unknown()).optional(),
    mcp: z
      .object({
        lazy: z.boolean().optional(),
        startupTimeoutMs: z.number().int().positive().optional(),
        toolTimeoutMs: z.number().int().positive().optional(),
        elicitation: z.enum(["decline", "cancel", "ask"]).optional(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough()
  .superRefine((config, ctx) => {
    // The configured key variable is as much keel's model key as OPENAI_API_KEY.
    const keyVar = typeof config.model === "object" ? config.model.apiKeyEnv : undefined;
    const at = keyVar ? (config.commandEnv?.pass ?? []).indexOf(keyVar) : -1;
    if (at !== -1) ctx.addIssue({ code: "custom", path: ["commandEnv", "pass", at], message: `${keyVar} (model.apiKeyEnv) ${NEVER_PASSED}` });
  });

/** The merged config as the host sees it. */
export type KeelConfig = z.infer<typeof KeelConfigSchema>;
