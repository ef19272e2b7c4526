import { randomBytes } from "../lazy-crypto.js";

/** A CI runner that acts on lines of a step's output: GitHub Actions (`::cmd::`, legacy `##[cmd]`) or Azure Pipelines (`##vso[…]`, `##[…]`). */
export type CiRunner = "github" | "azure";

/** The CI runner whose log keel's output goes to: `GITHUB_ACTIONS=true`, or `TF_BUILD` set (Azure Pipelines), else none. */
export function ciRunner(env: NodeJS.ProcessEnv): CiRunner | undefined {
  if (env.GITHUB_ACTIONS === "true") return "github";
  if (env.TF_BUILD) return "azure";
  return undefined;
}

/** The `#` that starts `##[` or `##vso[` (both runners look for these anywhere in a line, not only at its start). */
const HASH_COMMAND = /#(?=#(?:vso)?\[)/g;
/** The end of a chunk that may be the start of `##[` or `##vso[` completed by the next write. */
const PARTIAL_HASH_COMMAND = /#(?:#(?:v(?:so?)?)?)?$/;
const RAW = Symbol("keel.rawStream");

/**
 * JSON text keel prints, safe in a CI log: on a runner, the first `#` of `##[` and `##vso[` inside
 * strings is written `\u0023` (the same JSON value; `#` can stand only inside a string and never
 * right after an escaping backslash). A `::command::` cannot start a JSON line. Unchanged elsewhere.
 */
export function ciSafeJson(json: string, env: NodeJS.ProcessEnv): string {
  return ciRunner(env) ? json.replace(HASH_COMMAND, "\\u0023") : json;
}

/** The stream `guardCiStream` wrapped (for output that is a protocol, `keel serve`'s stdout), or `stream` itself. */
export function rawStream(stream: NodeJS.WritableStream): NodeJS.WritableStream {
  return (stream as { [RAW]?: NodeJS.WritableStream })[RAW] ?? stream;
}

/** A stream wrapped by `guardCiStream`, and `end()` to call once keel has written its last line. */
export interface CiGuardedStream {
  stream: NodeJS.WritableStream;
  /** Writes what is held back and, on GitHub, resumes command processing. Call once, after the last write. */
  end(): void;
}

/**
 * Text printed to a CI runner's log (model answers, tool output, server text) is never acted on as a
 * logging command. GitHub Actions: the first write is preceded by `::stop-commands::<random token>`,
 * and `end()` writes `::<token>::` on a line of its own, so nothing in between is processed. Both runners:
 * `##vso[` and `##[` anywhere in a line are shown as `\u0023#vso[` / `\u0023#[` (a chunk ending in a
 * possible start of one is held until the next write). `skip()` true at the first write (`--json`
 * on stdout: JSON lines cannot start with `::`, and `ciSafeJson` escapes the rest) leaves the
 * stream as it is. Off a CI runner, or already guarded, the stream is returned as it is.
 */
export function guardCiStream(stream: NodeJS.WritableStream, env: NodeJS.ProcessEnv, skip: () => boolean = () => false): CiGuardedStream {
  const runner = ciRunner(env);
  if (!runner || (stream as { [RAW]?: unknown })[RAW]) return { stream, end() {} };
  const token = randomBytes(16).toString("hex");
  let state: "new" | "guarded" | "skipped" | "ended" = "new";
  let held = "";
  let atLineStart = true;
  const write = (text: string): void => {
    if (text === "") return;
    atLineStart = text.endsWith("\n");
    stream.write(text);
  };
  const filter = (chunk: string): string => {
    if (state === "new") {
      state = skip() ? "skipped" : "guarded";
      if (state === "guarded" && runner === "github") write(`::stop-commands::${token}\n`);
    }
    if (state !== "guarded") return chunk;
    const text = held + chunk;
    held = PARTIAL_HASH_COMMAND.exec(text)?.[0] ?? "";
    return text.slice(0, text.length - held.length).replace(HASH_COMMAND, "\\u0023");
  };
  const guarded = new Proxy(stream, {
    get(target, prop) {
      if (prop === RAW) return target;
      if (prop === "write")
        return (chunk: string | Uint8Array, ...rest: unknown[]) => {
          const text = filter(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
          if (text !== "") atLineStart = text.endsWith("\n");
          return (target.write as (c: string, ...r: unknown[]) => boolean)(text, ...rest);
        };
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    stream: guarded,
    end() {
      if (state !== "guarded") return;
      state = "ended";
      write(held);
      held = "";
      if (runner === "github") write(`${atLineStart ? "" : "\n"}::${token}::\n`);
    },
  };
}
