import { type RunContext, type ToolDefinition, ToolError, UsageError } from "../../core/index.js";
import { defineTool, modelReads } from "../../core/index.js";
import type { WorkflowService } from "./workflow-service.js";

const SOURCE = { kind: "runtime", id: "workflow" } as const;

/** The text renderers, loaded on the first workflow tool call (listing the tools loads none). */
const describe = () => import("./describe-workflow.js");

/** The workflow tools (reference names): `workflow_list`, `workflow_get`, `workflow_run`. */
export function workflowTools(service: WorkflowService): ToolDefinition[] {
  return [
    defineTool(
      { type: "object", properties: { query: { type: "string" } }, additionalProperties: false },
      {
        name: "workflow_list",
        description:
          "List the workflows defined in this workspace and its plugins (name, step count, description). Optional `query` filters by name or description.",
        source: SOURCE,
        risk: ["read"],
        readOnly: true,
        async execute(input) {
          const workflows = service.list(input.query);
          const { describeWorkflowIndex } = await describe();
          return {
            content: describeWorkflowIndex(workflows),
            data: {
              workflows: workflows.map((w) => ({
                name: w.name,
                description: w.description ?? null,
                steps: w.steps.length,
                source: w.origin.file,
                parameters: w.parameters ?? null,
                needsTrust: service.needsTrust(w),
              })),
            },
            metadata: { action: "workflow_list" },
          };
        },
      },
    ),
    defineTool(
      { type: "object", properties: { workflow_name: { type: "string", minLength: 1 } }, required: ["workflow_name"], additionalProperties: false },
      {
        name: "workflow_get",
        description: "Show one workflow: description, parameters, prompt and every step.",
        source: SOURCE,
        risk: ["read"],
        readOnly: true,
        async execute(input, ctx) {
          const wf = known(service, input.workflow_name);
          const { origin, ...rest } = wf;
          const needsTrust = service.needsTrust(wf);
          const { describeWorkflow } = await describe();
          return {
            // A model reading this is told to ask the user to trust, never a way to trust for one run.
            content: describeWorkflow(wf, needsTrust, modelReads(ctx.run)),
            data: { ...rest, source: origin.file, needsTrust },
            metadata: { action: "workflow_get" },
          };
        },
      },
    ),
    defineTool(
      {
        type: "object",
        properties: { workflow_name: { type: "string", minLength: 1 }, arguments: { type: "object", additionalProperties: true } },
        required: ["workflow_name"],
        additionalProperties: false,
      },
      {
        name: "workflow_run",
        description:
          "Run a workflow by name with `arguments` (validated against its parameters). Each step still goes through the normal tool pipeline (permissions, plugin blocks, hooks). Returns the run report; the workflow's prompt, if any, is included for you to follow.",
        source: SOURCE,
        risk: ["delegate"],
        readOnly: false,
        timeoutMs: 0,
        async execute(input, ctx) {
          known(service, input.workflow_name);
          const origin = ctx.run.origin ?? "";
          const stack = origin.startsWith("workflow:") ? origin.slice("workflow:".length).split(">").filter(Boolean) : [];
          const record = await service.run(input.workflow_name, {
            args: input.arguments ?? {},
            signal: ctx.signal,
            yes: ctx.run.yes,
            approver: ctx.run.approver,
            sessionAllow: ctx.run.sessionAllow,
            sessionId: ctx.sessionId,
            ...callerBound(ctx.run),
            origin: "tool",
            // a person runs it from the command line (`keel call`) or an embedder's code; anyone else is a model
            readByModel: modelReads(ctx.run),
            cwd: ctx.cwd,
            stack,
          });
          const ok = record.status === "succeeded";
          const code = ok
            ? undefined
            : record.status === "cancelled"
              ? "cancelled"
              : record.refused === "arguments"
                ? "schema_invalid"
                : record.refused === "trust" || record.refused === "invocation"
                  ? "permission_denied"
                  : "execution_failed";
          const { describeRun } = await describe();
          return { ok, code, content: describeRun(record), data: record, metadata: { action: "workflow_run", run_id: record.id, status: record.status } };
        },
      },
    ),
  ];
}

function known(service: WorkflowService, name: string) {
  try {
    return service.require(name);
  } catch (error) {
    if (error instanceof UsageError) throw new ToolError(error.message, "precondition_failed");
    throw error;
  }
}

/**
 * What the run may start in turn (its prompt steps' and prompt commands' models, a command's shell
 * lines and `@file`s): within the caller's bound and, for a model's call, within its tool menu too.
 */
function callerBound(run: RunContext): { toolBound?: (name: string) => boolean } {
  const { toolBound, isVisible } = run;
  if (!toolBound && !isVisible) return {};
  return { toolBound: (name) => (toolBound?.(name) ?? true) && (isVisible?.(name) ?? true) };
}
