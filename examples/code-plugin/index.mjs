// A keel code plugin: `apply(keel)` runs once when a host opens (user level, or a trusted workspace).
// Types: `import("keel").CodePluginApi` (shipped with the package), used here through JSDoc.

/** Commands this plugin refuses to let any tool run. */
const BLOCKED = /\bgit\s+push\b.*(--force\b|\s-f\b)/;

/** @param {import("keel").CodePluginApi} keel */
export function apply(keel) {
  // A tool: runs through the whole pipeline (validation, hooks, permission, truncation, events).
  keel.registerTool({
    name: "count_words",
    description: "Counts the words of a text.",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string", description: "the text to count" } },
      required: ["text"],
      additionalProperties: false,
    },
    risk: ["read"],
    readOnly: true,
    /** @param {{ text: string }} input */
    execute(input) {
      const words = input.text.split(/\s+/).filter(Boolean).length;
      return { content: `${words} words`, data: { words } };
    },
  });

  // A veto: `beforeTool` is a bail hook; returning a block decision stops the call before it runs.
  keel.hooks.beforeTool.tapPromise(keel.name, async (ctx) => {
    const command = ctx.tool.name === "bash" ? /** @type {{ command?: string }} */ (ctx.input).command : undefined;
    if (typeof command === "string" && BLOCKED.test(command))
      return { block: true, by: keel.name, message: "Force pushes are blocked by the guard plugin; push without --force." };
    return undefined;
  });
}
