import type { ApprovalAnswer, ApprovalRequest, Approver } from "../core/index.js";

/** An approver written as a plain function: answers `yes`, `no` or `always` (this session) for one call that needs approval. */
export type ApproveFunction = (request: ApprovalRequest, signal: AbortSignal) => ApprovalAnswer | Promise<ApprovalAnswer>;

/** An approver object or function, as `createHost`, `callTool` and `runAgent` accept it. */
export type ApproverLike = Approver | ApproveFunction;

/** The `Approver` keel's pipeline calls, from an object or a function (undefined stays undefined). */
export function toApprover(approver: ApproverLike | undefined): Approver | undefined {
  if (approver === undefined || typeof approver === "object") return approver;
  return { approve: async (request, signal) => approver(request, signal) };
}
