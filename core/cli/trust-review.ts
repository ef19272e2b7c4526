import type { TrustItem } from "../trust.js";
import type { CliContext } from "./cli-context.js";

/**
 * What the workspace's trust would let it run or allow, read as `keel trust` reviews it: config as
 * trusted, nothing of the workspace started or imported (no server, hook or code plugin runs).
 */
export function reviewWorkspace(ctx: CliContext): Promise<{ items: TrustItem[]; sandboxed: false | "hidden" | "visible" }> {
  return ctx.withHost(async (host) => ({ items: [...host.trustItems], sandboxed: host.sandbox.workspaceCommands && host.sandbox.settings.credentials }), {
    reviewTrust: true,
    trust: false,
  });
}

/**
 * The line saying the approved hooks and stdio servers run under the OS sandbox (`sandbox.workspaceCommands`), when
 * some do, and whether they see your credential stores (`sandboxed`: the sandbox's `credentials`); else undefined.
 */
export function sandboxNote(items: readonly Pick<TrustItem, "kind">[], sandboxed: false | "hidden" | "visible"): string | undefined {
  if (!sandboxed || !items.some((i) => i.kind === "hook" || i.kind === "mcp server")) return undefined;
  const stores = sandboxed === "visible" ? 'but see your credential stores ("credentials": "visible" in your config)' : "and do not see your credential stores";
  return `Its hooks and stdio MCP servers run inside keel's OS sandbox (sandbox.workspaceCommands): they write only in the workspace ${stores}.`;
}

/**
 * One reviewed item as one line: `mcp server "a" (.mcp.json), with server.mjs`. A newline, tab or
 * direction mark in a name, command or file name is shown as an escape: a hook command of 80 blank
 * lines then `` hook PreToolUse `npx prettier --check .` `` would otherwise scroll its real start
 * off the screen and leave a harmless-looking line above the question. A run of more than 8 spaces
 * is shown as `[N spaces]` (any blank: no-break, em and ideographic spaces, braille and Hangul fillers
 * count), so nothing hides screens away to the right of a harmless start.
 */
export function trustItemLine(item: Pick<TrustItem, "kind" | "name" | "files">): string {
  const line = `${item.kind} ${item.name}${item.files?.length ? `, with ${item.files.join(", ")}` : ""}`;
  return line
    .replace(/[\n\t\u2028\u2029\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g, (c) =>
      c === "\n" ? "\\n" : c === "\t" ? "\\t" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    )
    .replace(/[\p{Zs}\u2800\u115f\u1160\u3164\uffa0]{9,}/gu, (run) => ` [${run.length} spaces] `);
}
