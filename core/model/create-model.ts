import type { ModelSpec } from "./model-spec.js";
import type { ModelClient } from "./model-types.js";
import { openaiModel } from "./openai-model.js";
import { scriptedModel } from "./scripted-model.js";

/** Creates the backend for a resolved model spec. Throws UsageError when it cannot be used. */
export function createModel(spec: ModelSpec, env: NodeJS.ProcessEnv): ModelClient {
  return spec.kind === "scripted" ? scriptedModel(spec) : openaiModel(spec, env);
}
