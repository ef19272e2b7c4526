import { maskCommand } from "../../core/index.js";

/**
 * A hook's command line as keel records it in events (`.keel/events.jsonl`, a session's log) and puts
 * it in messages the model reads, with its credentials masked whatever its level: a URL keeps its
 * scheme and host (`https://hooks.slack.com/***`: webhook URLs carry their secret in the path), and
 * the value of a credential option or variable (`--token X`, `--api-key=X`, `-u user:pass`,
 * `API_KEY=X`) or after `Bearer`/`Basic` is `***`. A workspace hook counts too: `.claude/settings.local.json`
 * and `.keel/config.local.json` are workspace-level files but yours, not the repository's (as
 * config_list judges values, not where they came from: runtimes/config/secret-values.ts). Never throws.
 */
export function shownCommand(h: { command: string }): string {
  return maskCommand(h.command);
}
