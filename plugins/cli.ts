import type { CommandRegistrar } from "../core/cli/cli-context.js";

/** Registers `keel plugins`. */
export const registerPluginCommands: CommandRegistrar = () => {};
