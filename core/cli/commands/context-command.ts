import type { Instructions } from "../../agent/project-instructions.js";
import { systemPromptFor } from "../../agent/session-hooks.js";
import { hookTextsMessage } from "../../agent/tool-guidance.js";
import { startToolMenu } from "../../agent/start-tool-menu.js";
import { errorMessage } from "../../errors.js";
import type { PromptContext } from "../../hooks.js";
import { estimateText } from "../../model/token-estimate.js";
import { fmt } from "../../registry.js";
import type { CliContext } from "../cli-context.js";
import { table } from "../format.js";

/** `keel context --json`: what the model sees at the start of a session. */
export interface ContextReport {
  model: string | null;
  contextWindow: number;
  system: { text: string; tokens: number };
  instructions: { files: { path: string; level: string; tokens: number; importedFrom?: string; source?: string; truncated: boolean }[]; notes: string[] };
  /** Plugin `beforePrompt` texts, sent as a user message before the prompt. */
  hookTexts: string | null;
  tools: { name: string; source: string; tokens: number; deferred: boolean }[];
  totals: { systemTokens: number; toolTokens: number; fullToolTokens: number; deferredTools: number; firstRequestTokens: number };
}

/**
 * `keel context`: the system prompt a new session in this directory starts with (instruction files
 * included, plugin `beforePrompt` hooks applied), the instruction files with their sources, and
 * the tool menu with token estimates (tools deferred behind tool_search marked). Starts no model call.
 */
export async function contextCommand(ctx: CliContext, opts: { model?: string }): Promise<void> {
  await ctx.withHost(
    async (host) => {
      const { menu, settings, spec, contextWindow, estimator } = startToolMenu(host, opts.model);
      const { prompt, instructions } = await systemPromptFor(host, settings.systemPrompt, host.activeDir);
      const pctx: PromptContext = { host, system: prompt, guidance: [], resume: false };
      let hookTexts: string | null = null;
      try {
        const out = await host.hooks.beforePrompt.promise(pctx);
        pctx.system = out?.system ?? pctx.system;
        hookTexts = hookTextsMessage("Plugin before-prompt hooks:", out?.guidance ?? pctx.guidance) ?? null;
      } catch (error) {
        instructions.notes.push(`a beforePrompt hook failed: ${errorMessage(error)}`);
      }
      const all = host.registry.listing();
      const offered = new Set(menu.tools.map((t) => t.name));
      const tools = all
        .filter((t) => offered.has(t.name) || menu.deferred.has(t.name))
        .map((t) => ({
          name: t.name,
          source: t.source.kind === "builtin" ? "builtin" : fmt(t.source as never),
          tokens: estimator.tools([t]),
          deferred: menu.deferred.has(t.name),
        }));
      const systemTokens = estimateText(pctx.system);
      const report: ContextReport = {
        model: spec ? (spec.kind === "scripted" ? `scripted:${spec.file}` : `openai:${spec.name}`) : null,
        contextWindow,
        system: { text: pctx.system, tokens: systemTokens },
        instructions: instructionRows(instructions),
        hookTexts,
        tools,
        totals: {
          systemTokens,
          toolTokens: menu.toolTokens,
          fullToolTokens: menu.fullToolTokens,
          deferredTools: menu.deferred.size,
          firstRequestTokens: systemTokens + (hookTexts ? estimateText(hookTexts) : 0) + menu.toolTokens,
        },
      };
      ctx.print(report, () => render(report));
    },
    { startServers: "background" },
  );
}

function instructionRows(found: Instructions): ContextReport["instructions"] {
  return {
    files: found.files.map((f) => ({
      path: f.shown,
      level: f.level,
      tokens: f.tokens,
      importedFrom: f.importedFrom,
      ...(f.source ? { source: f.source } : {}),
      truncated: f.truncated,
    })),
    notes: found.notes,
  };
}

function render(r: ContextReport): string {
  const out: string[] = [];
  out.push(
    r.model
      ? `Model: ${r.model} (context window ${r.contextWindow} tokens)`
      : `Model: none configured (estimates assume a ${r.contextWindow}-token window; see keel run --help)`,
  );
  out.push("", `System prompt (~${r.system.tokens} tokens):`, indent(r.system.text));
  out.push("", "Instruction files (nearest last):");
  if (r.instructions.files.length)
    out.push(
      indent(
        table(
          ["FILE", "LEVEL", "TOKENS", "NOTE"],
          r.instructions.files.map((f) => [
            f.path,
            f.level,
            String(f.tokens),
            [f.importedFrom ? `imported by ${f.importedFrom}` : "", f.source ? `from ${f.source}` : "", f.truncated ? "cut at 64 KiB" : ""]
              .filter(Boolean)
              .join("; "),
          ]),
        ),
      ),
    );
  else out.push("  none (AGENTS.md, CLAUDE.md, GEMINI.md or KEEL.md in the workspace root or a folder down to here; $KEEL_HOME/AGENTS.md)");
  for (const note of r.instructions.notes) out.push(`  skipped: ${note}`);
  if (r.hookTexts) out.push("", "Sent before the prompt:", indent(r.hookTexts));
  const deferred = r.totals.deferredTools ? `; ${r.totals.deferredTools} MCP and plugin tools deferred behind tool_search until found` : "";
  out.push("", `Tools (${r.tools.length - r.totals.deferredTools} offered, ~${r.totals.toolTokens} tokens${deferred}):`);
  out.push(
    indent(
      table(
        ["NAME", "SOURCE", "TOKENS"],
        r.tools.map((t) => [t.name + (t.deferred ? " (deferred)" : ""), t.source, String(t.tokens)]),
      ),
    ),
  );
  out.push("", `First request ≈ ${r.totals.firstRequestTokens} tokens before the prompt (${r.totals.systemTokens} system, ${r.totals.toolTokens} tools).`);
  return out.join("\n");
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}
