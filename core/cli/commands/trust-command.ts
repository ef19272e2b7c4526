import { recordTrust } from "../../trust.js";
import { resolveWorkspace } from "../../workspace.js";
import type { CliContext } from "../cli-context.js";

/** `keel trust [--revoke]`: records (or removes) persistent trust for this workspace in `$KEEL_HOME/trust.json`. */
export async function trustCommand(ctx: CliContext, opts: { revoke?: boolean }): Promise<void> {
  const ws = resolveWorkspace(ctx.globals().cwd, ctx.io.env);
  await recordTrust(ws, Boolean(opts.revoke));
  ctx.print({ workspace: ws.root, trusted: !opts.revoke }, () =>
    opts.revoke
      ? `Trust revoked for ${ws.root}. Its config may only restrict again: its allow rules, model endpoint and key variable are ignored, and its MCP servers and workflows will not run until trusted again.`
      : `Trusted ${ws.root}. Its config may now add allow rules and choose the model endpoint (never removing your deny rules), and its MCP servers and workflows may run.`,
  );
}
