/**
 * keel as a library (`import { createHost, runAgent } from "keel"`): open a host on a directory,
 * list and call its tools through the permission pipeline, run agent turns with an injectable
 * approver and streaming callbacks, and the types code plugins are written against. The `keel`
 * CLI is built on the same `createHost`.
 */
export { createHost, type CreateHostOptions } from "./create-host.js";
export { callTool, listTools, type CallToolOptions } from "./call-tool.js";
export { runAgent, type RunAgentOptions } from "./run-agent.js";
export type { ApproveFunction, ApproverLike } from "./approver.js";
export type { CodePluginApi, CodePluginApply, CodePluginHooks, CodePluginTool, ZodSchemaLike } from "../plugins/code-plugin-api.js";
export { Host, KeelError, UsageError, ToolError, errorMessage, formatDiagnostic } from "../core/index.js";
export type {
  AfterResultContext,
  AfterTurnContext,
  AgentOutcome,
  ApprovalAnswer,
  ApprovalRequest,
  Approver,
  BeforeToolContext,
  BlockDecision,
  CallElicitor,
  DelegateContext,
  DelegateResultContext,
  Diagnostic,
  EventSink,
  HostOptions,
  KeelConfig,
  KeelEvent,
  KeelEventType,
  KeelHooks,
  KeelPlugin,
  Observation,
  PermissionRules,
  PersistContext,
  PromptContext,
  RiskTag,
  ToolCallEnd,
  ToolCallStart,
  ToolContext,
  ToolDefinition,
  ToolIntent,
  ToolResult,
  ToolRow,
  ToolsChangedContext,
} from "../core/index.js";
