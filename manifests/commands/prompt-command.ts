import { parse as parseToml } from "smol-toml";
import { listField, parseFrontMatter, trueField } from "../markdown/front-matter.js";

/** A prompt command: a Claude Code command (`commands/*.md`) or a Gemini CLI command (`commands/*.toml`). */
export interface PromptCommand {
  /** Name without the slash (`greet`, `git:commit`, `plugin:greet` when a plugin's name clashed). */
  name: string;
  description?: string;
  /** What arguments it takes, for help (`argument-hint`). */
  argumentHint?: string;
  /** Claude `allowed-tools` (rule syntax: `Bash(git status:*)`), which gate `` !`cmd` `` lines. */
  allowedTools?: string[];
  /**
   * False for a Claude Code command with `disable-model-invocation: true`: only the user may run it
   * (`keel run "/name"`, `keel workflow run`), never the model through `workflow_run`.
   */
  modelInvocable?: boolean;
  /** Model the command asks for (`model`); keel uses it as a model name on the configured endpoint. */
  model?: string;
  /** The prompt text before substitution. */
  template: string;
  syntax: "claude" | "gemini";
  /** File it came from (absolute). */
  file: string;
  /** Folder relative `@file` references resolve against: the workspace root for project commands. */
  level: "project" | "user";
  plugin?: string;
}

/** A problem with one command file. */
export interface CommandIssue {
  severity: "error" | "warning" | "info";
  message: string;
}

type Origin = Pick<PromptCommand, "file" | "level" | "plugin">;

/** Parses a Claude Code command: YAML front matter (`description`, `argument-hint`, `allowed-tools`, `model`) and a Markdown body. */
export function parseClaudeCommand(text: string, name: string, origin: Origin): { command?: PromptCommand; issues: CommandIssue[] } {
  if (!text.trim()) return { issues: [{ severity: "warning", message: "The command file is empty; it was skipped." }] };
  const issues: CommandIssue[] = [];
  const doc = parseFrontMatter(text);
  if (doc.lenient) issues.push({ severity: "info", message: `${doc.lenient}; it was read as plain "key: value" lines. Quote values that contain ": ".` });
  if (!doc.body.trim())
    return { issues: [...issues, { severity: "error", message: "The command has no prompt text after its front matter; it was skipped." }] };
  const str = (key: string) => (typeof doc.data[key] === "string" && (doc.data[key] as string).trim() ? (doc.data[key] as string).trim() : undefined);
  let model = str("model");
  // A scripted model replays tool calls from a file: a repository's command choosing one would write the model's calls itself.
  if (model?.startsWith("scripted:") && origin.level !== "user") {
    issues.push({
      severity: "warning",
      message: `model "${model}" is ignored: a command of the workspace may not choose a scripted model (its file would decide the tool calls); the configured model runs it.`,
    });
    model = undefined;
  }
  return {
    command: {
      name,
      description: str("description") ?? firstLine(doc.body),
      argumentHint: str("argument-hint"),
      allowedTools: listField(doc.data["allowed-tools"]),
      ...(trueField(doc.data["disable-model-invocation"]) ? { modelInvocable: false } : {}),
      model,
      template: doc.body,
      syntax: "claude",
      ...origin,
    },
    issues,
  };
}

/** Parses a Gemini CLI command: TOML with `prompt` (required) and `description`. */
export function parseGeminiCommand(text: string, name: string, origin: Origin): { command?: PromptCommand; issues: CommandIssue[] } {
  if (!text.trim()) return { issues: [{ severity: "warning", message: "The command file is empty; it was skipped." }] };
  let data: Record<string, unknown>;
  try {
    data = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    return { issues: [{ severity: "error", message: `not valid TOML (${(error as Error).message.split("\n")[0]}); the command was skipped.` }] };
  }
  if (typeof data.prompt !== "string" || !data.prompt.trim())
    return { issues: [{ severity: "error", message: 'needs a "prompt" string (the text sent to the model); the command was skipped.' }] };
  const unknown = Object.keys(data).filter((k) => k !== "prompt" && k !== "description");
  const issues: CommandIssue[] = unknown.length
    ? [{ severity: "warning", message: `unknown field${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} ignored` }]
    : [];
  return {
    command: {
      name,
      description: typeof data.description === "string" && data.description.trim() ? data.description.trim() : firstLine(data.prompt),
      template: data.prompt,
      syntax: "gemini",
      ...origin,
    },
    issues,
  };
}

function firstLine(text: string): string | undefined {
  const line = text
    .split("\n")
    .map((l) => l.replace(/^#+\s*/, "").trim())
    .find(Boolean);
  return line ? line.slice(0, 120) : undefined;
}
