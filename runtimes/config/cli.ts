import { Option } from "commander";
import { type CommandRegistrar, positiveIntOption, refuseInToolProcess, runToolCommand } from "../../core/cli/index.js";
import { CONFIG_SOURCES, WRITABLE_SOURCES } from "./config-source-lists.js";

/** Parses a command-line value as JSON when it is JSON (`true`, `3`, `["a"]`, `"x"`), else keeps it as a string. */
export function parseCliValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Registers `keel config list|get|set` (thin wrappers over config_list, config_get, config_set) and `keel config confirm-local`. */
export const registerConfigCommands: CommandRegistrar = (program, ctx) => {
  const run = async (tool: string, input: Record<string, unknown>): Promise<void> => {
    const clean = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
    await runToolCommand(ctx, tool, clean);
  };
  const config = program.command("config").description("keel configuration: user < legacy < claude < project < local");
  config
    .command("list")
    .description("List config keys with their sources")
    .addOption(new Option("--source <source>", "one layer (default: the merged view)").choices([...CONFIG_SOURCES, "merged"]))
    .option("--prefix <key>", "only keys under this path")
    .option("--limit <n>", "at most n keys", positiveIntOption("--limit"))
    .option("--show-secrets", "show values that look like secrets (env, headers, keys, tokens) instead of hiding them")
    .action((o: { source?: string; prefix?: string; limit?: number; showSecrets?: boolean }) =>
      run("config_list", { source: o.source, prefix: o.prefix, limit: o.limit, show_secrets: o.showSecrets }),
    );
  config
    .command("get")
    .description("Get a value and the source it came from")
    .argument("<key>", 'dotted key path, e.g. permissions.deny or mcp["my.server"]')
    .addOption(new Option("--source <source>", "read only this layer").choices([...CONFIG_SOURCES, "merged"]))
    .option("--show-secrets", "show the value even if it looks like a secret")
    .action((key: string, o: { source?: string; showSecrets?: boolean }) =>
      run("config_get", { key_path: key, source: o.source, show_secrets: o.showSecrets }),
    );
  config
    .command("set")
    .description("Set a value (parsed as JSON when it is JSON, else a string)")
    .argument("<key>", "dotted key path")
    .argument("<value>", `JSON value, e.g. strict, 3, true, '["bash(rm *)"]'`)
    .addOption(new Option("--source <source>", "where to write (default local: .keel/config.local.json)").choices(WRITABLE_SOURCES))
    .action((key: string, value: string, o: { source?: string }) => run("config_set", { key_path: key, value: parseCliValue(value), source: o.source }));
  config
    .command("confirm-local")
    .description(
      "Accept your local config files (.keel/config.local.json, .claude/settings.local.json) as they are: stop holding deny and ask rules gone from them",
    )
    .action(async () => {
      refuseInToolProcess(ctx.io.env, "keel config confirm-local");
      await (await import("./confirm-local-command.js")).confirmLocalCommand(ctx);
    });
};
