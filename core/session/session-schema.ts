import { z } from "zod";
import { StateError } from "../errors.js";
import { DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_OUTPUT_TOKENS } from "../model/model-spec.js";
import type { ChatMessage } from "../model/model-types.js";
import type { SessionMeta, SessionState } from "./session-types.js";

// What keel reads of a session's `session.json` and `state.json` (see session-types.ts for the TypeScript
// types): a repository can commit .keel/sessions/<id>/ holding any JSON, so these are checked at the boundary.
// Fields keel does not read pass through unchecked. The types stay the source of truth (their field comments,
// ModelSpec and ChatMessage are used everywhere; a type inferred from these loose schemas would accept any field
// name): the checks at the end of this file make the two fail to compile when they drift apart.

const count = z.number().int().nonnegative();
const strings = z.array(z.string());

const ToolCallSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
  extraContent: z.record(z.string(), z.unknown()).optional(),
});

/** A model-facing message (`ChatMessage`). */
const ChatMessageSchema = z.discriminatedUnion("role", [
  z.looseObject({ role: z.literal("system"), content: z.string() }),
  z.looseObject({ role: z.literal("user"), content: z.string(), kind: z.string().optional() }),
  z.looseObject({
    role: z.literal("assistant"),
    content: z.string(),
    toolCalls: z.array(ToolCallSchema).optional(),
    reasoning: z.looseObject({}).optional(),
    origin: z.string().optional(),
    cutOff: z.number().optional(),
  }),
  z.looseObject({
    role: z.literal("tool"),
    toolCallId: z.string(),
    name: z.string(),
    content: z.string(),
    pruned: z.boolean().optional(),
    artifact: z.string().optional(),
  }),
]);

const PendingCallSchema = ToolCallSchema.extend({
  status: z.enum(["queued", "done", "awaiting_approval"]),
  guidance: z.string().optional(),
  child: z.string().optional(),
});

const UsageSchema = z.looseObject({
  modelCalls: count,
  toolCalls: count,
  inputTokens: count,
  outputTokens: count,
  lastRequestTokens: count.optional(),
});

/** What keel reads of `session.json` (`SessionMeta`). */
export const SessionMetaSchema = z.looseObject({
  id: z.string(),
  createdAt: z.string(),
  parentSessionId: z.string().optional(),
  depth: count,
  model: z.discriminatedUnion("kind", [
    z.looseObject({ kind: z.literal("scripted"), file: z.string(), contextWindow: z.number().optional(), maxOutputTokens: z.number().optional() }),
    z.looseObject({ kind: z.literal("openai"), name: z.string(), baseUrl: z.string().optional(), apiKeyEnv: z.string().optional() }),
  ]),
  cwd: z.string(),
  pinnedCwd: z.boolean().optional(),
  plugins: strings.optional(),
  pluginFingerprint: z.string().optional(),
  servers: strings.optional(),
  serverFingerprint: z.string().optional(),
  toolMenuHash: z.string().optional(),
  worktree: z.looseObject({ name: z.string(), path: z.string(), branch: z.string() }).optional(),
  agentType: z.looseObject({ name: z.string(), file: z.string(), prompt: z.string() }).optional(),
});

/** What keel reads of `state.json` and of the state it holds once its log is replayed (`SessionState`). */
export const SessionStateSchema = z.looseObject({
  id: z.string(),
  status: z.enum(["running", "idle", "awaiting_approval", "failed"]),
  reason: z.string().optional(),
  error: z.string().optional(),
  updatedAt: z.string(),
  turn: count,
  turnSteps: count,
  pid: z.number().int().optional(),
  title: z.string(),
  messages: z.array(ChatMessageSchema),
  pending: z.looseObject({ turn: count, calls: z.array(PendingCallSchema), cutOff: z.number().optional() }).nullable(),
  usage: UsageSchema,
  pluginState: z.record(z.string(), z.unknown()),
  discoveredTools: strings,
  sessionAllow: strings,
  fileBaselines: z.record(z.string(), z.looseObject({ size: z.number(), mtimeMs: z.number(), hash: z.string() })),
  lastAnswer: z.string().optional(),
  toolSubset: strings.optional(),
  maxSteps: count.optional(),
  budgets: z.looseObject({ maxTokens: z.number().optional(), maxToolCalls: z.number().optional(), maxModelCalls: z.number().optional() }).optional(),
  childUsage: z.record(z.string(), z.looseObject({ modelCalls: count, toolCalls: count, inputTokens: count, outputTokens: count })).optional(),
  yes: z.boolean().optional(),
});

// Compile-time only (no code at run time): the schemas and session-types.ts cannot drift apart.
/** `T` as declared: loose objects' index signatures dropped, arrays read-only. */
type Declared<T> = T extends readonly (infer E)[]
  ? readonly Declared<E>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: Declared<T[K]> }
    : T;
/** `T` with every field, at any depth, optional. */
type Partly<T> = T extends readonly (infer E)[] ? readonly Partly<E>[] : T extends object ? { [K in keyof T]?: Partly<T[K]> } : T;
/** Compiles when what keel writes (`T`) passes the check `S`. */
type Passes<S extends z.ZodType, T extends Declared<z.input<S>>> = T;
/** Compiles when every field the check lets through (`Out`) has its type in `T` (fields it leaves out aside). */
type Typed<T, Out extends Partly<T>> = Out;
/** Compiles when the check reads every field of the type (`Unread`: those it does not, named). */
type Covers<Unread extends never> = Unread;
/** The one field the check lets through looser than its type: a user message's `kind` may be any string, not only one keel writes. */
type KindAnyString<M> = M extends { role: "user" } ? Omit<M, "kind"> & { kind?: string } : M;
type MetaRead = Declared<z.output<typeof SessionMetaSchema>>;
type StateRead = Declared<z.output<typeof SessionStateSchema>>;
type _SessionSchemaChecks = [
  Passes<typeof SessionMetaSchema, SessionMeta>,
  Passes<typeof SessionStateSchema, SessionState>,
  Typed<SessionMeta, MetaRead>,
  Typed<Omit<SessionState, "messages">, Omit<StateRead, "messages">>,
  Typed<KindAnyString<ChatMessage>, StateRead["messages"][number]>,
  // `permissions` is written for the record and never read back; `version` is set by the reader
  Covers<Exclude<keyof SessionMeta, keyof MetaRead | "permissions">>,
  Covers<Exclude<keyof SessionState, keyof StateRead | "version">>,
];

/**
 * `value` checked against `schema` and naming session `id` (its folder's name: keel writes files of a session under
 * its id, so one naming another session would have keel write that one's files); a StateError naming `file` and the
 * first field that is not as keel writes it (`what`: whose file), saying to move the session's folder `dir` away.
 * keel never rewrites such a file.
 */
export function checkSessionFile<T>(schema: z.ZodType<T>, value: unknown, id: string, file: string, dir: string, what: string): T {
  const parsed = schema.safeParse(value);
  let problem: string | undefined;
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    problem = `${issue.path.length ? issue.path.map(String).join(".") : "(the whole file)"}: ${issue.message}`;
  } else if ((value as { id: string }).id !== id) problem = `id: names session ${JSON.stringify((value as { id: string }).id)}, not ${JSON.stringify(id)}`;
  if (problem === undefined) return value as T;
  throw new StateError(
    `${what}: ${file} is not as keel writes it (${problem}). keel left it as is and reads nothing of this session: it was edited or not written by keel (a repository can commit .keel/sessions/). Move the session's folder ${dir} away (or delete it), then start a new session.`,
    file,
  );
}

/**
 * `meta` as checked, with what the check leaves optional and keel's readers take as given filled in: a scripted model
 * recorded without `contextWindow` or `maxOutputTokens` (a hand-written or old `session.json`) gets the defaults a
 * scripted model configured without them gets, not `undefined` (which compaction and pruning compared as NaN: never).
 */
export function withMetaDefaults(meta: SessionMeta): SessionMeta {
  if (meta.model.kind !== "scripted") return meta; // an endpoint's model is resolved again from the config on every resume
  const { contextWindow = DEFAULT_CONTEXT_WINDOW, maxOutputTokens = DEFAULT_MAX_OUTPUT_TOKENS } = meta.model as Partial<typeof meta.model>;
  return { ...meta, model: { ...meta.model, contextWindow, maxOutputTokens } };
}

/** `state` (changed in place) with `usage.lastRequestTokens`, which an old `state.json` may not hold, as 0 (unknown until the next model call). */
export function withStateDefaults(state: SessionState): SessionState {
  state.usage.lastRequestTokens ??= 0;
  return state;
}
