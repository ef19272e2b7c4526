import type { Host } from "./host.js";

/** Variables that hold keel's own model credentials by convention. */
const MODEL_KEY_VARS = ["OPENAI_API_KEY"];

/**
 * The environment of commands keel runs for the model or for hooks (the bash tool, command hooks):
 * keel's own environment without the model's API key (`OPENAI_API_KEY` and the configured
 * `model.apiKeyEnv`), so a command — and through its output the model — never sees keel's credentials.
 */
export function commandEnv(host: Host): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...host.env };
  const model = host.config.model;
  const keyVar = typeof model === "object" && model !== null ? (model as { apiKeyEnv?: unknown }).apiKeyEnv : undefined;
  for (const name of [...MODEL_KEY_VARS, ...(typeof keyVar === "string" ? [keyVar] : [])]) delete env[name];
  return env;
}
