import type { ToolDefinition } from "../types.js";

/** Shared traits of the built-in file tools: builtin source, `path` permission matching, risk by kind. */
export function pathToolTraits(kind: "read" | "write"): Pick<ToolDefinition, "source" | "risk" | "readOnly" | "permissionKey" | "permissionMatch"> {
  return {
    source: { kind: "builtin", id: "core" },
    risk: [kind],
    readOnly: kind === "read",
    permissionKey: "path",
    permissionMatch: "path",
  };
}
