import type { ToolDefinition } from "../types.js";

/** Shared traits of the built-in file tools: builtin source, `path` permission matching, risk by kind. */
export function pathToolTraits(kind: "read" | "write"): Pick<ToolDefinition, "source" | "risk" | "readOnly" | "concurrency" | "permissionKey" | "permissionMatch"> {
  return {
    source: { kind: "builtin", id: "core" },
    risk: [kind],
    readOnly: kind === "read",
    concurrency: kind === "read" ? "safe" : "keyed",
    permissionKey: "path",
    permissionMatch: "path",
  };
}
