import type { CommandRegistrar } from "../core/cli/cli-context.js";

/** CLI registrars of every runtime (`keel mcp`, `keel task`, ...). Add one line per runtime. */
export const runtimeCommands: CommandRegistrar[] = [
];
