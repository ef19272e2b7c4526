/**
 * keel's public CLI plumbing: what `bin/` and the runtimes' command registrars import. Kept light
 * (no host, no config loader, no schema validator), so `keel --help` and other commands load only
 * what they run; the rest of the public API is `core/index.ts`.
 */
export type { CliContext, CliIO, CommandRegistrar, GlobalOptions } from "./cli-context.js";
export { chatArgv } from "./chat-argv.js";
export { commandGroup } from "./command-group.js";
export { registerCoreCommands } from "./core-commands.js";
export { registerAgentCommands } from "./agent-commands.js";
export { firstLine, table } from "./format.js";
export { registerSetupCommands } from "./setup-commands.js";
export { positiveIntOption } from "./int-option.js";
export { runToolCommand } from "./run-tool-command.js";
export { exactText, terminalText } from "./terminal-text.js";
export { guardCiStream, rawStream } from "./ci-log-commands.js";
export { printedJson } from "./printed-json.js";
export { type StopWatch, watchStopSignals } from "./stop-signals.js";
export { reviewWorkspace } from "./trust-review.js";
export { ttyApprover } from "./tty-approver.js";
export { ttyElicitor } from "./tty-elicitor.js";
export { refuseInToolProcess, refuseTrustInToolProcess, refuseYesInToolProcess } from "./your-terminal-only.js";
export { KeelError, UsageError, errorMessage } from "../errors.js";
export { storageMessage } from "../state/storage-problem.js";
