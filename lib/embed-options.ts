import { UsageError } from "../core/index.js";

/**
 * The options a program passes to `createHost`, `callTool` and `runAgent`, checked where they enter
 * keel: a JavaScript caller (or one that reads its settings from JSON or the environment) gets no
 * compiler, and a wrong type must not widen. `trust: "no"` would have trusted the workspace,
 * `yes: "false"` approved every call, `deny: "bash"` denied the letters b, a, s, h, and a misspelt
 * `permisions` dropped its deny rules without a word. Each is a `UsageError` naming the option.
 * Plain checks, not zod: the CLI opens its hosts through this module, and zod loads on first use.
 */
type Check = (value: unknown) => string | undefined;

const fn =
  (what: string): Check =>
  (v) =>
    typeof v === "function" ? undefined : `must be a function ${what}`;
const bool =
  (what: string): Check =>
  (v) =>
    typeof v === "boolean" ? undefined : `must be true or false (${what}); a string such as "false" is not false`;
const str: Check = (v) => (typeof v === "string" ? undefined : "must be a string");
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

// Array.from: `every` skips the holes of a sparse array (`[, "bash"]`), which then met the rules' parser as undefined.
const ruleList: Check = (v) =>
  Array.isArray(v) && Array.from(v).every((rule) => typeof rule === "string" && rule.trim() !== "")
    ? undefined
    : 'must be a list of rules, e.g. ["bash(git status*)"]';

const approver: Check = (v) =>
  typeof v === "function" || (isObject(v) && typeof v.approve === "function")
    ? undefined
    : 'must be a function (request, signal) => "yes" | "no" | "always", or an object with approve(request, signal)';

/** Option name → its check; a name not listed is refused. */
type Shape = Record<string, Check>;

const CREATE_HOST: Shape = {
  cwd: (v) => (typeof v === "string" && v !== "" ? undefined : "is required: the directory of the workspace to open (a path)"),
  env: (v) =>
    isObject(v) && Object.values(v).every((x) => x === undefined || typeof x === "string")
      ? undefined
      : "must be an object of variables (string values; default process.env)",
  trust: bool("true trusts the workspace; false keeps it untrusted even with KEEL_TRUST=1"),
  yes: bool("true approves every call that asks"),
  permissions: (v) => {
    if (!isObject(v)) return "must be an object { allow, ask, deny } of rule lists";
    for (const [key, value] of Object.entries(v)) {
      if (!["allow", "ask", "deny"].includes(key)) return `.${key} is not one of allow, ask, deny (misspelt?)`;
      const problem = value === undefined ? undefined : ruleList(value);
      if (problem) return `.${key} ${problem}`;
    }
    return undefined;
  },
  model: (v) => (typeof v === "string" || isObject(v) ? undefined : 'must be a model name, "scripted:FILE", or { name, baseUrl, ... }'),
  approver,
  elicit: fn("(request, signal) => ({ action, content })"),
  onEvent: fn("(event) => void"),
  events: (v) => (isObject(v) && typeof v.emit === "function" && typeof v.flush === "function" ? undefined : "must be an EventSink { emit, flush }"),
  notice: fn("(line) => void"),
  progress: fn("(line) => void"),
  startServers: (v) =>
    typeof v === "boolean" || v === "background" || (isObject(v) && typeof v.tool === "string") ? undefined : 'must be true, false, "background" or { tool }',
  plugins: (v) =>
    Array.isArray(v) && Array.from(v).every((p: unknown) => isObject(p) && typeof p.name === "string" && typeof p.apply === "function")
      ? undefined
      : "must be a list of plugins { name, apply(host) }",
};

const CALL: Shape = {
  signal: (v) => (v instanceof AbortSignal ? undefined : "must be an AbortSignal"),
  approver,
  yes: bool("true approves a call that asks"),
};

const CALL_TOOL: Shape = { ...CALL, callId: str, cwd: str, elicit: fn("(request, signal) => ({ action, content })") };

const RUN_AGENT: Shape = {
  ...CALL,
  onText: fn("(delta) => void"),
  onToolStart: fn("(call) => void"),
  onToolEnd: fn("(call) => void"),
  onEvent: fn("(event) => void"),
  model: (v) => (typeof v === "string" ? undefined : 'must be a model name or "scripted:FILE"'),
  maxSteps: (v) => (Number.isInteger(v) && (v as number) > 0 ? undefined : "must be a positive whole number"),
  sessionId: str,
  resume: str,
};

/** Throws a `UsageError` naming every option of `where` that is unknown or not what it takes (an absent or `undefined` one is fine). */
function check(shape: Shape, options: unknown, where: string): void {
  if (!isObject(options)) throw new UsageError(`${where} takes an options object${where === "createHost" ? ": createHost({ cwd })" : ""}.`);
  const problems: string[] = [];
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const test = Object.hasOwn(shape, name) ? shape[name]! : undefined;
    const problem = test ? test(value) : `is not an option of ${where} (misspelt?)`;
    // ".deny must be …" names a field of the option
    const [, field = "", text = problem] = problem?.match(/^(\.\S+) (.*)$/s) ?? [];
    if (problem) problems.push(`\`${name}${field}\` ${text}`);
  }
  if (where === "createHost" && options.cwd === undefined) problems.unshift(`\`cwd\` ${CREATE_HOST.cwd!(undefined)}`);
  if (problems.length) throw new UsageError(`${where}: ${problems.join("; ")}. See the README section "Embedding keel".`);
}

/** Checks `createHost`'s options (after its refusal of `config` and `reviewTrust`). */
export function checkCreateHostOptions(options: unknown): void {
  check(CREATE_HOST, options, "createHost");
}

/** Checks one `callTool`'s options. */
export function checkCallToolOptions(options: unknown): void {
  check(CALL_TOOL, options, "callTool");
}

/** Checks one `runAgent`'s options. */
export function checkRunAgentOptions(options: unknown): void {
  check(RUN_AGENT, options, "runAgent");
}
