import * as unbash from "unbash";
import { PermissionPolicy } from "../../core/permissions.js";
import type { ToolDefinition } from "../../core/types.js";

/** A policy with the shell parser loaded (the pipeline loads it with `await policy.ready()`). */
export function policy(...args: ConstructorParameters<typeof PermissionPolicy>): PermissionPolicy {
  const p = new PermissionPolicy(...args);
  p.useShellParser(unbash);
  return p;
}

/** A stand-in for the bash tool as permission rules see it (its name, risk and the argument rules match). */
export const bash: ToolDefinition = {
  name: "bash",
  description: "",
  inputSchema: {},
  source: { kind: "builtin", id: "core" },
  risk: ["execute"],
  readOnly: false,
  permissionKey: "command",
  permissionMatch: "text",
  execute: async () => ({ content: "" }),
};

/** What `p` decides for a bash call running `command` in /ws. */
export const decide = (p: PermissionPolicy, command: string) => p.decide("bash", bash, { command }, "/ws");
