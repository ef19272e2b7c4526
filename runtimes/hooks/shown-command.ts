import { maskCommand } from "../../core/index.js";

/**
 * A hook's command line as keel records it in events (`.keel/events.jsonl`, a session's log) and puts
 * it in messages the model reads. A hook of yours (`$KEEL_HOME` config, a user-level plugin) is yours to
 * keep: its credentials are masked — a URL keeps its scheme and host (`https://hooks.slack.com/***`:
 * webhook URLs carry their secret in the path), and the value of a credential option or variable
 * (`--token X`, `--api-key=X`, `-u user:pass`, `API_KEY=X`) or after `Bearer`/`Basic` is `***`. A
 * workspace hook's line is the repository's own, readable in its file anyway, and is shown as written, so events
 * diagnose it exactly (config_list masks every level's: see runtimes/config/secret-values.ts). Never throws.
 */
export function shownCommand(h: { command: string; origin: { level: "user" | "workspace" } }): string {
  return h.origin.level === "workspace" ? h.command : maskCommand(h.command);
}
