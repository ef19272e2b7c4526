import type { Observation } from "../types.js";
import type { CliContext } from "./cli-context.js";
import { inToolProcess } from "../trust-hint.js";
import { terminalText } from "./terminal-text.js";
import { ttyApprover } from "./tty-approver.js";

/** Options of `runToolCommand`. */
export interface RunToolCommandOptions {
  /** Text printed for a successful observation (default: its `content`). */
  human?: (obs: Observation) => string;
}

/**
 * Runs one tool for a user's direct CLI command (`keel task add`, `keel config set`, ...) through
 * the full pipeline and prints the observation (`--json`: the observation itself); exit 1 when
 * it is not ok, 2 when the tool rejected the input the command built (`schema_invalid`: a usage error). Deny rules and plugin blocks apply as for `keel call`, and explicit `ask` rules
 * still ask (TTY prompt, or `--yes`). Only the default risk-based ask is answered by the command
 * itself: typing `keel task add "x"` is the user's approval of exactly that call — not when a command keel runs for a
 * tool runs it (`KEEL_CALL` set: a model's bash call), where it asks as `keel call` does.
 */
export async function runToolCommand(ctx: CliContext, tool: string, input: Record<string, unknown>, opts: RunToolCommandOptions = {}): Promise<Observation> {
  const globals = ctx.globals();
  const approver = ctx.io.interactive && !globals.yes ? ttyApprover(ctx.io.stdin, ctx.io.stderr, ctx.interrupt) : undefined;
  return ctx.withHost(
    async (host) => {
      const resolved = host.registry.resolve(tool);
      if (resolved?.tool.permissionKey === "command") await host.permissions.ready();
      const decision = resolved
        ? host.permissions.decide(
            tool,
            resolved.tool,
            input,
            host.activeDir,
            host.confinementRoot(),
            resolved.alias && { level: resolved.alias.level ?? "workspace" },
          )
        : undefined;
      // Typed by the user, the command is the approval; run by a command keel started for a tool (a model's bash call), it is not.
      const direct = decision?.action === "ask" && decision.rule === undefined && !inToolProcess(ctx.io.env) ? true : undefined;
      const obs = await host.runTool({ tool, input }, { origin: "cli", signal: ctx.signal, yes: direct });
      // The command built the input from its arguments: input the schema rejects is a usage error (exit 2), told in one line.
      const usage = obs.code === "schema_invalid";
      ctx.print(obs, () => {
        if (usage) {
          const text = (obs.content.split(" Expected input schema:")[0] ?? "").replace(" Fix the arguments and call again.", "");
          ctx.io.stderr.write(terminalText(`keel: ${text}${text.startsWith("Invalid input for") ? " (--help lists the command's arguments)" : ""}\n`));
          return undefined;
        }
        if (!obs.ok) {
          ctx.io.stderr.write(terminalText(`✗ ${obs.tool}: ${obs.code} (phase ${obs.phase})\n`));
          return obs.content;
        }
        return opts.human ? opts.human(obs) : obs.content;
      });
      if (!obs.ok) ctx.setExitCode(usage ? 2 : 1);
      return obs;
    },
    { approver },
  );
}
