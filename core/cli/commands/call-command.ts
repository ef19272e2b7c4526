import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { UsageError, errorMessage } from "../../errors.js";
import type { CliContext } from "../cli-context.js";
import { terminalText } from "../terminal-text.js";
import { ttyApprover } from "../tty-approver.js";

/** Options of `keel call`. */
export interface CallOptions {
  input?: string;
  inputFile?: string;
}

/** Parses `--input JSON` or `--input-file FILE` (`-` for stdin). Usage errors throw UsageError. */
export async function readCallInput(opts: CallOptions, cwd: string, stdin: NodeJS.ReadableStream): Promise<unknown> {
  if (opts.input !== undefined && opts.inputFile !== undefined) throw new UsageError("Use either --input or --input-file, not both.");
  let text = opts.input;
  if (opts.inputFile !== undefined) {
    try {
      text = opts.inputFile === "-" ? await readAll(stdin) : await readFile(resolve(cwd, opts.inputFile), "utf8");
    } catch (error) {
      throw new UsageError(`Cannot read --input-file ${opts.inputFile}: ${errorMessage(error)}`);
    }
  }
  if (text === undefined || text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--input is not valid JSON (${errorMessage(error)}). Example: --input '{"path":"README.md"}'`);
  }
}

async function readAll(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** `keel call <tool>`: one intent through the full pipeline; prints the observation; exit 1 when not ok. */
export async function callCommand(ctx: CliContext, tool: string, opts: CallOptions): Promise<void> {
  const globals = ctx.globals();
  const input = await readCallInput(opts, globals.cwd, ctx.io.stdin);
  const approver = ctx.io.interactive && !globals.yes ? ttyApprover(ctx.io.stdin, ctx.io.stderr, ctx.interrupt) : undefined;
  await ctx.withHost(
    async (host) => {
      const obs = await host.runTool({ tool, input }, { origin: "cli", signal: ctx.signal });
      ctx.print(obs, () => {
        if (!obs.ok) ctx.io.stderr.write(terminalText(`✗ ${obs.tool}: ${obs.code} (phase ${obs.phase})\n`));
        const extra =
          obs.messages.beforeTool.length || obs.messages.afterResult.length
            ? "\n" + [...obs.messages.beforeTool.map((m) => `[before] ${m}`), ...obs.messages.afterResult.map((m) => `[after] ${m}`)].join("\n")
            : "";
        return obs.content + extra;
      });
      if (!obs.ok) ctx.setExitCode(1);
    },
    // Only the servers this tool may need start (`keel call mcp__a__x` starts server `a` alone).
    { approver, startServers: { tool } },
  );
}
