import type { TrustItem } from "../trust.js";
import type { CliContext } from "./cli-context.js";

/**
 * What the workspace's trust would let it run or allow, read as `keel trust` reviews it: config as
 * trusted, nothing of the workspace started or imported (no server, hook or code plugin runs).
 */
export function reviewWorkspace(ctx: CliContext): Promise<TrustItem[]> {
  return ctx.withHost(async (host) => [...host.trustItems], { reviewTrust: true, trust: false });
}

/** One reviewed item as a line: `mcp server "a" (.mcp.json), with server.mjs`. */
export function trustItemLine(item: Pick<TrustItem, "kind" | "name" | "files">): string {
  return `${item.kind} ${item.name}${item.files?.length ? `, with ${item.files.join(", ")}` : ""}`;
}
