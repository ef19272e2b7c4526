import { UsageError, type Host, type KeelPlugin } from "../../core/index.js";
import { WorkflowService } from "./workflow-service.js";
import { workflowTools } from "./workflow-tools.js";

const PLUGIN_NAME = "workflow-runtime";

declare module "../../core/services.js" {
  interface KeelServices {
    /** Discovered workflows and runs (workflow runtime). */
    workflows: WorkflowService;
  }
}

/**
 * The workflow runtime: discovers workflows when tools are registered (diagnostics for every
 * problem), provides the `"workflows"` service (prompt commands included, as one-step workflows) and
 * `"prompt-commands"` (`/name args` prompts for `keel run`), and registers `workflow_list`, `workflow_get`, `workflow_run`.
 */
export function workflowRuntime(): KeelPlugin {
  return {
    name: PLUGIN_NAME,
    apply(host: Host) {
      const service = new WorkflowService(host);
      host.provide("workflows", service);
      host.provide("prompt-commands", {
        async expand(prompt, run) {
          const { expandPrompt } = await import("../commands/expand-prompt.js");
          // A command of the name wins; else a skill of the name starts as in Claude Code (`/name args`).
          const command = await expandPrompt(host, prompt, run, (name) => service.command(name));
          if (command) return command;
          const skill = await host.service("skills")?.expand(prompt);
          if (skill?.refused) throw new UsageError(skill.refused);
          return skill;
        },
      });
      host.hooks.registerTools.tapPromise(PLUGIN_NAME, async () => {
        await service.load();
        for (const tool of workflowTools(service)) host.registry.register(tool);
      });
    },
  };
}
