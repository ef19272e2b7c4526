import type { ApprovalAnswer, ApprovalRequest, Approver } from "../../core/index.js";

/** The part of the SDK's `Server` the approver needs: sending `elicitation/create` to the client. */
export interface ElicitingServer {
  elicitInput(
    params: {
      mode?: "form";
      message: string;
      requestedSchema: {
        type: "object";
        properties: Record<string, { type: "boolean"; title?: string; description?: string; default?: boolean }>;
        required?: string[];
      };
    },
    options?: { signal?: AbortSignal },
  ): Promise<{ action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> }>;
}

/**
 * Turns keel's `ask` into an MCP form elicitation to the client: a yes/no question (plus "allow for
 * the rest of this session") naming the tool, its input and why it asks. Accept with `approve: true`
 * is yes (or always), anything else is no; a cancelled elicitation cancels the call (AbortError).
 */
export function elicitApprover(server: ElicitingServer): Approver {
  return {
    async approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
      const input = JSON.stringify(request.input);
      const shown = input.length > 2000 ? `${input.slice(0, 2000)}…` : input;
      const result = await server.elicitInput(
        {
          mode: "form",
          message: `keel asks for approval to run ${request.tool}${request.resolvedTool !== request.tool ? ` (${request.resolvedTool})` : ""}: ${request.reason}.\nInput: ${shown}`,
          requestedSchema: {
            type: "object" as const,
            properties: {
              approve: { type: "boolean" as const, title: "Run this tool call?", description: `Run ${request.tool} with the input shown.`, default: false },
              remember: {
                type: "boolean" as const,
                title: "Allow for this session",
                description: `Approve every later call of ${request.resolvedTool} in this MCP session without asking.`,
                default: false,
              },
            },
            required: ["approve"],
          },
        },
        { signal },
      );
      if (result.action === "cancel") throw new DOMException(`The approval of ${request.tool} was cancelled by the client.`, "AbortError");
      if (result.action !== "accept" || result.content?.approve !== true) return "no";
      return result.content.remember === true ? "always" : "yes";
    },
  };
}
