/**
 * keel core's public API: everything runtimes, plugins, manifests and `bin/` may import from core
 * (a lint rule forbids importing core's internal files from outside core). CLI plumbing, kept light
 * for start-up, is `core/cli/index.ts`.
 */
export { createHash, randomBytes } from "./lazy-crypto.js";
export { Host, type HostOptions, type KeelPlugin } from "./host.js";
export type {
  Approver,
  BinaryPart,
  CallElicitor,
  JsonSchema,
  Observation,
  RiskTag,
  RunContext,
  ToolContext,
  ToolDefinition,
  ToolResult,
  ToolSource,
  EventSink,
  EventInput,
  EventOf,
  KeelEvent,
  KeelEventType,
} from "./types.js";
export type { ApprovalAnswer, ApprovalRequest, CallOrigin, ToolIntent } from "./types.js";
export type { ElicitationAnswer, ElicitationRequest, Elicitor } from "./elicitation.js";
export type * from "./event-types.js";
export type {
  KeelServiceName,
  KeelServices,
  AgentService,
  ExpandedPrompt,
  PromptCommandsService,
  AgentType,
  AgentTypesService,
  PluginHandOff,
  PluginsService,
  SessionStateService,
  WorktreeExitResult,
  WorktreeInfo,
  WorktreeService,
} from "./services.js";
export type {
  AfterResultContext,
  AgentStopContext,
  BeforeToolContext,
  BlockDecision,
  CompactContext,
  NotificationContext,
  GuidanceEntry,
  HookPermission,
  UnknownToolQuery,
  UserPromptContext,
} from "./hooks.js";
export { KeelError, ManifestError, McpServerError, StateError, ToolError, UsageError, errorMessage } from "./errors.js";
export { Diagnostics, formatDiagnostic, type Diagnostic } from "./diagnostics.js";
export { didYouMean, editDistance, MAX_COMPARED_NAME, quotedName, suggestNames } from "./did-you-mean.js";
export { MODEL_HELP, resolveModelSpec, type ModelSpec } from "./model/model-spec.js";
export { sandboxUnavailable } from "./sandbox/bwrap.js";
export { requireSystemProgram, systemEnv, systemProgram } from "./system-program.js";
export { MCP_OAUTH_DIR, SESSION_KEY_FILE, keelHomeSecrets } from "./keel-home-secrets.js";
export { ToolRegistry, fmt } from "./registry.js";
export { ON_DEMAND_TOOLS, SKILL_TOOL, type OnDemandTool } from "./on-demand-tools.js";
export { describeSchemaErrors, type CompiledSchema } from "./validation.js";
export { ancestorsWithin, resolveWorkspace, type Workspace } from "./workspace.js";
export { MAX_MANIFEST_BYTES, readRegularFile } from "./bounded-read.js";
export { linkedSignal, type LinkedSignal } from "./linked-signal.js";
export { ABORTED, untilAborted } from "./until-aborted.js";
export { parseJsonText, withoutBom } from "./json-text.js";
export { analyzeShell, type ShellParser } from "./shell/shell-analysis.js";
export { ShellLexer, type ShellSpot } from "./shell/shell-context.js";
export { changedPinnedFile, fileDigest, MAX_DIGEST_BYTES, MISSING } from "./file-digest.js";
export { MAX_TIMER_MS } from "./tool-call.js";
export { BASH_MAX_TIMEOUT_MS } from "./tools/bash.js";
export { CALL_MARK, callMarkValue, killMarked, newCallMark } from "./tools/call-mark.js";
export { sinkWithEmit } from "./events.js";
export {
  type LockHeld,
  MAX_STATE_TEXT_BYTES,
  readJsonState,
  readStateTail,
  readStateText,
  updateJsonState,
  withFileLock,
  writeJsonState,
  writeTextAtomic,
} from "./state/json-file.js";
export { findStaleTemps, keelTempName, removeStaleTemps, removeStaleTempsIn, writeFileAtomic } from "./state/atomic-write.js";
export { storageMessage, storageProblem } from "./state/storage-problem.js";
export { gitStorageMessage } from "./state/git-storage-failure.js";
export { assertOwnPath, ownReadFlags, PRIVATE_DIR_MODE } from "./state/own-path.js";
export { enqueueMessage } from "./session/message-queue.js";
export { SessionSeals } from "./session/session-seal.js";
export { confinePath, inside, workspaceDirIn } from "./tools/confine-path.js";
export { shownPath } from "./shown-path.js";
export { gitTopAt } from "./git-marker.js";
export { userItemProblem, userItemRefusal, yourOwners } from "./foreign-owner.js";
export { userTreeProblem, userTreeRefusal } from "./user-tree.js";
export { MAX_OUTSIDE_RUN_FILES, outsideRunProblem, type OutsideRunPlace } from "./outside-run-files.js";
export { withoutRepoLocation } from "./git-repo-env.js";
export { realOrSelf } from "./real-path.js";
export { visibleJson } from "./visible-json.js";
export { redirectTargetForDisplay, urlForDisplay, urlSecrets } from "./url-secrets.js";
export { type ClosableFetch, type Fetch, proxyFetch, ProxySettingError, usableProxy } from "./net/proxy-fetch.js";
export { hasProxy, proxyFor, proxyForDisplay, proxySettings, type ProxySettings } from "./net/proxy-settings.js";
export { envValue } from "./env-value.js";
export { isPlainValue, type ResultRedactor } from "./result-secrets.js";
export {
  MIN_SECRET_LENGTH,
  MIN_SECRET_LINE_LENGTH,
  REDACTED,
  redactDeep,
  redactorForChangingSecrets,
  redactSecrets,
  secretRedactor,
} from "./redact-secrets.js";
export { maskCommand } from "./mask-command.js";
export { looksSecretName, looksSecretValue, maskSecretShapes, namesWebhook, secretShapesIn, type SecretNameCost } from "./secret-words.js";
export { modelsEndpoint } from "./model/endpoint-url.js";
export { MCP_MANIFEST_NAMES } from "./control-files.js";
export { approveTrustItem, trustApproves, type TrustItem, type WorkspaceTrust } from "./trust.js";
export { commandEnv, hookEnv, scrubbedVarNames } from "./command-env.js";
export { openFileInside, readOpened } from "./tools/open-inside.js";
export { readRefusal } from "./tools/read-refusal.js";
export { builtinTools } from "./tools/builtin-tools.js";
export { agentPlugin } from "./agent/agent-plugin.js";
export { allowedToolsAllow, allowedToolsAllowBash } from "./config/allowed-tools.js";
export { commandDenier, type CommandDenier } from "./config/denied-commands.js";
export { compileRuleFilter, type RuleFilter } from "./config/claude-rule-filter.js";
export { capUntrustedLimits, restrictUntrusted } from "./config/untrusted-config.js";
export { CLAUDE_SETTINGS_FILES, localConfigFile, type ConfigLayer, type ConfigSourceName } from "./config/config-sources.js";
export { deepMerge, isPlainObject, keelConfigSchema, layerMerging, loadConfigLayers, modelConfigProblem, type LayerMerging } from "./config/load-config.js";
export {
  CONFIRM_LOCAL_COMMAND,
  confirmLocalRules,
  localConfigFiles,
  recordOwnLocalWrite,
  type ConfirmedLocalFile,
  type LocalConfigFile,
  type LocalConfirmation,
} from "./config/local-rules.js";
export { MAX_RECORD_BYTES } from "./config/local-rules-record.js";
export { trackedByGit } from "./config/git-tracked.js";
export {
  formatTemplateValue,
  lookupPlaceholder,
  MAX_RENDERED_CHARS,
  renderTemplate,
  type PlaceholderLookup,
  type RenderedTemplate,
  type RenderTemplateOptions,
} from "./render-template.js";
export { defineTool, objectSchema, type InputOf, type SchemaLiteral } from "./define-tool.js";
export type { AfterTurnContext, DelegateContext, DelegateResultContext, KeelHooks, PersistContext, PromptContext, ToolsChangedContext } from "./hooks.js";
export type { PermissionRules } from "./permissions.js";
export { compileGlob, globMatcher, type CompiledGlob } from "./glob-matcher.js";
export type { AgentOutcome, AgentRunOptions } from "./agent/agent-runtime.js";
export type { ToolCallEnd, ToolCallStart } from "./agent/active-session.js";
export type { KeelConfig } from "./config/config-schema.js";
export { toolRows, type ToolRow } from "./tool-rows.js";
export { approvalReadByModel, MODEL_APPROVAL_STOP } from "./settle-ask.js";
export { ASK_USER_TO_TRUST, forModel, inToolProcess, modelReads, orTrustOnce, TRUST_ONCE, type TrustOnceClause } from "./trust-hint.js";
