import type { TrustItem } from "../trust.js";
import type { CliContext } from "./cli-context.js";
import { exactText } from "./terminal-text.js";

/**
 * What the workspace's trust would let it run or allow, read as `keel trust` reviews it: config as
 * trusted, nothing of the workspace started or imported (no server, hook or code plugin runs).
 */
export function reviewWorkspace(ctx: CliContext): Promise<{ items: TrustItem[]; sandboxed: false | "hidden" | "visible"; unixSocketsBlocked: boolean }> {
  return ctx.withHost(
    async (host) => ({
      items: [...host.trustItems],
      sandboxed: host.sandbox.workspaceCommands && host.sandbox.settings.credentials,
      unixSocketsBlocked: host.sandbox.unixSocketsBlocked,
    }),
    { reviewTrust: true, trust: false },
  );
}

/**
 * The line saying the approved hooks and stdio servers run under the OS sandbox (`sandbox.workspaceCommands`), when
 * some do, whether they see your credential stores (`sandboxed`: the sandbox's `credentials`) and whether they are
 * kept off Unix sockets (`unixSocketsBlocked`); else undefined.
 */
export function sandboxNote(
  items: readonly Pick<TrustItem, "kind">[],
  sandboxed: false | "hidden" | "visible",
  unixSocketsBlocked = false,
): string | undefined {
  if (!sandboxed || !items.some((i) => i.kind === "hook" || i.kind === "mcp server")) return undefined;
  const stores = sandboxed === "visible" ? 'but see your credential stores ("credentials": "visible" in your config)' : "and do not see your credential stores";
  const sockets = unixSocketsBlocked ? "; they cannot open Unix sockets (the X server, D-Bus)" : "";
  return `Its hooks and stdio MCP servers run inside keel's OS sandbox (sandbox.workspaceCommands): they write only in the workspace ${stores}${sockets}.`;
}

/**
 * One reviewed item as one line: `mcp server "a" (.mcp.json), with server.mjs`, shown exactly (see
 * `exactText`): a hook command of 80 blank lines then `` hook PreToolUse `npx prettier --check .` ``
 * would otherwise scroll its real start off the screen and leave a harmless-looking line above the
 * question, and a run of spaces would hide its tail screens away to the right of a harmless start.
 */
export function trustItemLine(item: Pick<TrustItem, "kind" | "name" | "files">): string {
  return exactText(`${item.kind} ${item.name}${item.files?.length ? `, with ${item.files.join(", ")}` : ""}`);
}
