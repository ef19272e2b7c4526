import { recordTrust, trustPin, workspaceTrust } from "../../trust.js";
import { resolveWorkspace } from "../../workspace.js";
import type { CliContext } from "../cli-context.js";
import { reviewWorkspace, sandboxNote, trustItemLine } from "../trust-review.js";

/**
 * `keel trust [--revoke]`: records (or removes) persistent trust for this workspace in
 * `$KEEL_HOME/trust.json`, approving the MCP servers, command hooks and code plugins it declares
 * now (read without running any of them); one added or changed later waits for the next `keel trust`.
 * Your own command line only: core-commands.ts refuses it inside a process keel started for a tool (refuseInToolProcess).
 */
export async function trustCommand(ctx: CliContext, opts: { revoke?: boolean }): Promise<void> {
  const ws = resolveWorkspace(ctx.globals().cwd, ctx.io.env);
  if (opts.revoke) {
    // Whether there is a record to remove (KEEL_TRUST is not a record).
    const recorded = (await workspaceTrust(ws, false, {})).trusted;
    if (recorded) await recordTrust(ws, true);
    ctx.print({ workspace: ws.root, trusted: false }, () =>
      recorded
        ? `Trust revoked for ${ws.root}. Its config may only restrict again: its allow rules, model endpoint and key variable are ignored, and its MCP servers, hooks, code plugins and workflows will not run until trusted again.`
        : `${ws.root} was not trusted (keel trust has no record of it): nothing to revoke.`,
    );
    return;
  }
  const { items, sandboxed, unixSocketsBlocked, credentialsFrom } = await reviewWorkspace(ctx);
  const note = sandboxNote(items, sandboxed, unixSocketsBlocked, credentialsFrom);
  await recordTrust(ws, false, items);
  const approved = items.map((i) => ({
    kind: i.kind,
    name: i.name,
    pin: trustPin(i),
    ...(i.files?.length ? { files: i.files } : {}),
    ...(i.variables?.length ? { variables: i.variables } : {}),
  }));
  ctx.print({ workspace: ws.root, trusted: true, approved, ...(note ? { sandboxed: true } : {}) }, () =>
    [
      `Trusted ${ws.root}. Its config may now add allow rules and choose the model endpoint (never removing your deny rules), and its workflows may run.`,
      approved.length
        ? `Approved to run as they are now (one added or changed later waits for the next \`keel trust\`):\n${approved.map((a) => `  ${trustItemLine(a)}`).join("\n")}`
        : "It declares no MCP servers, hooks or code plugins; any added later waits for the next `keel trust`.",
      ...(note ? [note] : []),
    ].join("\n"),
  );
}
