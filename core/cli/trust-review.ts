import { relative } from "node:path";
import type { ConfigLayer } from "../config/config-sources.js";
import type { TrustItem } from "../trust.js";
import type { CliContext } from "./cli-context.js";
import { exactText } from "./terminal-text.js";

/**
 * What the workspace's trust would let it run or allow, read as `keel trust` reviews it: config as
 * trusted, nothing of the workspace started or imported (no server, hook or code plugin runs).
 */
export function reviewWorkspace(
  ctx: CliContext,
): Promise<{ items: TrustItem[]; sandboxed: false | "hidden" | "visible"; unixSocketsBlocked: boolean; credentialsFrom: string[] }> {
  return ctx.withHost(
    async (host) => ({
      items: [...host.trustItems],
      sandboxed: host.sandbox.workspaceCommands && host.sandbox.settings.credentials,
      unixSocketsBlocked: host.sandbox.unixSocketsBlocked,
      credentialsFrom: credentialsVisibleIn(host.configInfo.layers, host.workspace.root),
    }),
    { reviewTrust: true, trust: false },
  );
}

/**
 * The config files that say `"credentials": "visible"`, as a note names them: `your config (<file>)` for
 * yours, `this workspace's <file>` (relative to the root) for the workspace's.
 */
export function credentialsVisibleIn(layers: readonly ConfigLayer[], root: string): string[] {
  return layers
    .filter((l) => {
      const sandbox = l.value?.sandbox;
      return typeof sandbox === "object" && sandbox !== null && (sandbox as { credentials?: unknown }).credentials === "visible";
    })
    .map((l) => (l.source === "user" ? `your config (${l.file})` : `this workspace's ${relative(root, l.file) || l.file}`));
}

/**
 * The line saying the approved hooks and stdio servers run under the OS sandbox (`sandbox.workspaceCommands`), when
 * some do, whether they see your credential stores (`sandboxed`: the sandbox's `credentials`; `credentialsFrom`: the files that
 * made them visible, see credentialsVisibleIn) and whether they are kept off Unix sockets (`unixSocketsBlocked`); else undefined.
 */
export function sandboxNote(
  items: readonly Pick<TrustItem, "kind">[],
  sandboxed: false | "hidden" | "visible",
  unixSocketsBlocked = false,
  credentialsFrom: readonly string[] = [],
): string | undefined {
  if (!sandboxed || !items.some((i) => i.kind === "hook" || i.kind === "mcp server")) return undefined;
  const where = credentialsFrom.length ? credentialsFrom.join(" and ") : "the config";
  const stores = sandboxed === "visible" ? `but see your credential stores ("credentials": "visible" in ${where})` : "and do not see your credential stores";
  const sockets = unixSocketsBlocked ? "; they cannot open Unix sockets (the X server, D-Bus)" : "";
  return `Its hooks and stdio MCP servers run inside keel's OS sandbox (sandbox.workspaceCommands): they write only in the workspace ${stores}${sockets}.`;
}

/**
 * One reviewed item as one line: `mcp server "a" (.mcp.json), with server.mjs`, shown exactly (see
 * `exactText`): a hook command of 80 blank lines then `` hook PreToolUse `npx prettier --check .` ``
 * would otherwise scroll its real start off the screen and leave a harmless-looking line above the
 * question, and a run of spaces would hide its tail screens away to the right of a harmless start.
 */
export function trustItemLine(item: Pick<TrustItem, "kind" | "name" | "files" | "variables">): string {
  const files = item.files?.length ? `, with ${item.files.join(", ")}` : "";
  const variables = item.variables?.length ? `; it gets your ${item.variables.join(", ")}` : "";
  return exactText(`${item.kind} ${item.name}${files}${variables}`);
}
