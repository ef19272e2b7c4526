import { inToolProcess, orTrustOnce, TRUST_ONCE } from "../../core/index.js";
import type { Host } from "../../core/index.js";
import type { WorkflowDefinition } from "../../manifests/workflow/workflow-schema.js";

/**
 * True when the workflow may not run until the workspace is trusted: it is defined in the
 * workspace (its files, `.keel/workflows/`, or a workspace plugin) and the workspace is untrusted.
 * User-level workflows (user-level plugins) never need trust. A prompt command does not either: its
 * text reaches the model only when you invoke it by name (like AGENTS.md, it widens nothing), and
 * its shell lines run only from trusted sources (commandMayRunShell). A host opened for `keel trust`'s
 * review reads the workspace as trusted, but runs none of it.
 */
export function workflowNeedsTrust(host: Host, wf: WorkflowDefinition): boolean {
  return (!host.trusted || host.options.reviewTrust === true) && !wf.origin.userLevel && wf.origin.kind !== "command";
}

/**
 * The refusal for a workflow of an untrusted workspace (any step kind: none runs), saying what was
 * refused, that no step ran and how to trust; undefined when it may run. `byModel`: the run was asked
 * for by the model (`workflow_run`), which is told to ask the user, never a way to trust for one run.
 */
export function untrustedWorkflowMessage(host: Host, wf: WorkflowDefinition, byModel = false): string | undefined {
  if (!workflowNeedsTrust(host, wf)) return undefined;
  const where = wf.origin.kind === "plugin" ? `plugin "${wf.origin.plugin}" of this workspace (${wf.origin.file})` : wf.origin.file;
  const steps = `${wf.steps.length} step${wf.steps.length === 1 ? "" : "s"}`;
  return `Workflow "${wf.name}" is defined in ${where}, but this workspace is not trusted, so its workflows may not run (whatever their steps do; this one has ${steps}). No step was run. Trust the workspace with \`keel trust\`${orTrustOnce(byModel || inToolProcess(host.env), TRUST_ONCE.persistentOrOnce)}.`;
}
