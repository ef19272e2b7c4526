import { extensionFor } from "./artifacts.js";
import type { Host } from "./host.js";
import { HIDDEN_NOTE_START, hiddenSecretsNote, hideSecrets, type ResultRedactor } from "./result-secrets.js";
import { looksBinary, truncateMiddle } from "./truncate.js";
import type { ArtifactRef, ToolDefinition, ToolResult } from "./types.js";

/** Metadata key by which a hook says the agent's turn ends after this call (`continue: false`). */
const HOOK_STOP = "hook_stop";

/** A normalized tool result: string content, plain metadata, artifacts listed. */
export interface NormalizedResult {
  ok: boolean;
  content: string;
  data: unknown;
  metadata: Record<string, unknown>;
  artifacts: ArtifactRef[];
  truncated: boolean;
  code?: ToolResult["code"];
  /** A delegating tool's pre-execution phase (see `ToolResult.phase`). */
  phase?: ToolResult["phase"];
}

/**
 * Normalize phase: the secrets keel knows are hidden from the text and data (`host.resultSecrets`, with a note
 * saying so), before anything is stored; binary parts and binary-looking text become artifacts; content is always a string.
 * `metadata` is always a fresh object (the tool's metadata under the result's, after the pipeline's
 * `source` and `resolvedTool`, left for the caller to set), so the caller may extend it.
 */
export function normalizeResult(host: Host, tool: ToolDefinition, callId: string, result: ToolResult): NormalizedResult {
  // The pipeline's own keys come first and it sets them after: on Node 20 adding keys to an object
  // made by `{ ...spread }` costs ~2 µs each time (bench/README.md, issue 14, "What changed"), and
  // `Object.assign` would let a `__proto__` key in a manifest's metadata set this object's prototype.
  const metadata: Record<string, unknown> = { source: undefined, resolvedTool: undefined, ...tool.metadata, ...result.metadata };
  // `hook_stop` is the hooks' signal (set after this, by an afterResult tap): a tool's own metadata
  // (a workspace plugin's virtual tool writes its metadata) cannot end the agent's turn as a hook would.
  if (Object.hasOwn(metadata, HOOK_STOP)) delete metadata[HOOK_STOP];
  const artifacts: ArtifactRef[] = result.artifacts ? [...result.artifacts] : [];
  let content = typeof result.content === "string" ? result.content : result.content == null ? "" : String(result.content);
  let data: unknown = result.data === undefined ? null : result.data;
  const redactor = host.resultSecrets.redactor();
  if (redactor) ({ content, data } = hideSecrets(redactor, content, data));
  const binary = result.binary;
  if (binary && binary.length) {
    const notes: string[] = [];
    let hidden = 0;
    for (const [i, part] of binary.entries()) {
      // Saved bytes hide the secrets too: as UTF-8 and UTF-16 (a UTF-16 `.env` without a byte order mark is binary to
      // read_file), and their encoded forms (a command printing a token next to a NUL byte).
      const bytes = redactor ? redactor.bytes(part.data) : part.data;
      if (bytes !== part.data) hidden++;
      const ref = host.artifacts.write(callId, `${part.kind ?? "binary"}-${i}`, bytes, extensionFor(part.mimeType), part.mimeType);
      artifacts.push({ ...ref, kind: part.kind ?? "binary" });
      notes.push(`[${part.kind ?? "binary"} ${part.mimeType}, ${bytes.length} bytes, saved to ${ref.path}]`);
    }
    if (looksBinary(content)) content = binaryOutput(host, callId, content, artifacts, redactor);
    if (hidden && !content.includes(HIDDEN_NOTE_START)) notes.push(hiddenSecretsNote(hidden));
    content = content ? `${content}\n${notes.join("\n")}` : notes.join("\n");
  } else if (looksBinary(content)) {
    content = binaryOutput(host, callId, content, artifacts, redactor);
  }
  return {
    ok: result.ok !== false,
    content,
    data,
    metadata,
    artifacts,
    truncated: result.truncated === true,
    code: result.code,
    ...(result.phase !== undefined && result.ok === false ? { phase: result.phase } : {}),
  };
}

/**
 * Keeps binary-looking text as an artifact and returns the note that replaces it. Its text hid the secrets already, but
 * not as UTF-16 (`G\0I\0T\0…` from a tool that read a UTF-16 file as latin1): its bytes hide them too.
 */
function binaryOutput(host: Host, callId: string, content: string, artifacts: ArtifactRef[], redactor: ResultRedactor | undefined): string {
  const raw = Buffer.from(content, "latin1");
  const bytes = redactor ? redactor.bytes(raw) : raw;
  const ref = host.artifacts.write(callId, "binary-output", bytes, "bin", "application/octet-stream");
  artifacts.push(ref);
  const note = `[binary output, ${content.length} bytes, not shown; saved to ${ref.path}]`;
  return bytes === raw || content.includes(HIDDEN_NOTE_START) ? note : `${note}\n${hiddenSecretsNote(1)}`;
}

/** Truncate phase: over-budget content keeps head and tail; the full text goes to an artifact named in content. */
export function truncateResult(host: Host, tool: ToolDefinition, callId: string, r: NormalizedResult): NormalizedResult {
  const budget = tool.outputBudget ?? host.outputBudget;
  if (r.content.length <= budget) return r;
  const ref = host.artifacts.write(callId, "full-output", r.content, "txt", "text/plain");
  const cut = truncateMiddle(r.content, budget, `Full output saved to ${ref.path}; read it with read_file (offset/limit) if you need the rest`);
  return { ...r, content: cut.text, truncated: true, artifacts: [...r.artifacts, { ...ref, kind: "full-output" }] };
}
