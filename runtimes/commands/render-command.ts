import { ManifestError, MAX_RENDERED_CHARS, ShellLexer } from "../../core/index.js";
import type { PromptCommand } from "../../manifests/commands/prompt-command.js";

/** What rendering needs from the host: contained file reads and permission-checked shell runs. */
export interface RenderDeps {
  /** Text of a workspace file named by `@path` / `@{path}`; throws with a message saying why not. */
  readFile(path: string): Promise<string>;
  /** Output of a shell command line from `` !`cmd` `` / `!{cmd}`; throws with a message when it may not or did not run. */
  runShell(command: string): Promise<string>;
}

/** A rendered command: the prompt text, and what it read and ran on the way. */
export interface RenderedCommand {
  text: string;
  files: string[];
  shell: { command: string; ok: boolean }[];
}

/**
 * Renders a prompt command with its arguments.
 * Claude Code syntax: `$ARGUMENTS` (all of them) and `$1`…`$9` (shell-like words), `` !`cmd` `` of the
 * template (never one an argument brings in) replaced by the command's output (with the arguments
 * filled in), and the template's own `@path` references followed by the files' contents (an `@path`
 * in the arguments or in a shell line's output stays literal text); arguments
 * given to a template without `$ARGUMENTS` or `$N` are appended as `ARGUMENTS: …`.
 * Gemini CLI syntax: `!{cmd}` replaced by its output (with `{{args}}` inside it shell-quoted),
 * the template's `@{path}` by the file's contents (`@{…}` in the arguments stays literal), `{{args}}` elsewhere by the arguments as typed; arguments given
 * to a template without `{{args}}` are appended after a blank line.
 * A shell command or file that cannot be used becomes a bracketed note in the text (the model sees
 * what is missing and why), never a silent gap; so does a file past `maxChars` (default MAX_RENDERED_CHARS) of
 * text. A prompt the arguments alone make longer than that (a command file writing `$ARGUMENTS` 100,000 times)
 * throws ManifestError naming the file, before it is built.
 */
export async function renderCommand(cmd: PromptCommand, args: string, deps: RenderDeps, maxChars = MAX_RENDERED_CHARS): Promise<RenderedCommand> {
  const limit: Limit = { maxChars, file: cmd.file };
  return cmd.syntax === "gemini" ? renderGemini(cmd.template, args, deps, limit) : renderClaude(cmd.template, args, deps, limit);
}

/** The longest prompt text, and the command file it is rendered from (named when it is too long). */
interface Limit {
  maxChars: number;
  file: string;
}

/** Throws when `length` characters are more than the limit allows. */
function ensureFits(length: number, limit: Limit): void {
  if (length > limit.maxChars)
    throw new ManifestError(
      `The command ${limit.file} renders to a prompt of more than ${limit.maxChars} characters (it repeats its arguments too often, or they are too long); it was not run. Write $ARGUMENTS (or {{args}}) fewer times, or pass shorter arguments.`,
      limit.file,
    );
}

/** `text` with each match of `re` replaced by `value(match)`, refused (ensureFits) before it grows past the limit. */
function replaceCapped(text: string, re: RegExp, value: (m: RegExpExecArray) => string, limit: Limit): string {
  let out = "";
  let last = 0;
  for (const m of text.matchAll(re)) {
    const piece = text.slice(last, m.index);
    const v = value(m);
    ensureFits(out.length + piece.length + v.length, limit);
    out += piece + v;
    last = m.index + m[0].length;
  }
  ensureFits(out.length + text.length - last, limit);
  return out + text.slice(last);
}

async function renderClaude(template: string, args: string, deps: RenderDeps, limit: Limit): Promise<RenderedCommand> {
  const words = shellWords(args);
  const usesArgs = /\$ARGUMENTS|\$[1-9]/.test(template);
  const substitute = (text: string) => replaceCapped(text, /\$ARGUMENTS|\$([1-9])/g, (m) => (m[1] ? (words[Number(m[1]) - 1] ?? "") : args), limit);
  const out: RenderedCommand = { text: "", files: [], shell: [] };
  // Shell lines are found in the template itself, then get the arguments: an argument (which the model
  // may write, through workflow_run) can fill in a line the command's author wrote, never add one.
  out.text = await replaceAsync(template, /!`([^`\n]+)`/g, async (_m, command: string) => shellOutput(substitute(command), deps, out), substitute, limit);
  if (!usesArgs && args.trim()) {
    ensureFits(out.text.length + args.length + 13, limit);
    out.text = `${out.text.trimEnd()}\n\nARGUMENTS: ${args}`;
  }
  // `@path` references are found in the command file's own text (its shell lines aside), never in the
  // arguments or a shell line's output: an argument (which the model may write, through workflow_run)
  // stays literal text, so a path it names is read, if at all, by a read_file call through the pipeline.
  const ownText = template.replace(/!`([^`\n]+)`/g, " ");
  const refs = [...new Set([...ownText.matchAll(/(?:^|\s)@((?:\.{0,2}\/)?[\w.\-/]*\.[A-Za-z0-9]+)\b/g)].map((m) => m[1]!))];
  const blocks: string[] = [];
  let length = out.text.length;
  for (const [i, ref] of refs.entries()) {
    // Not one file past the limit is read: one file named many ways (`@a.md`, `@x/../a.md`, …) would be included as often.
    const block = length < limit.maxChars ? `Contents of @${ref}:\n${fenced(await fileText(ref, deps, out))}` : undefined;
    if (block === undefined || length + block.length > limit.maxChars) {
      blocks.push(
        `[${refs.length - i} of the command's @file references (from @${ref} on) not included: the prompt would be longer than ${limit.maxChars} characters, the most keel renders]`,
      );
      break;
    }
    blocks.push(block);
    length += block.length + 2;
  }
  if (blocks.length) out.text = `${out.text.trimEnd()}\n\n${blocks.join("\n\n")}`;
  return out;
}

async function renderGemini(template: string, args: string, deps: RenderDeps, limit: Limit): Promise<RenderedCommand> {
  const out: RenderedCommand = { text: template, files: [], shell: [] };
  const usesArgs = template.includes("{{args}}");
  let text = "";
  const add = (piece: string) => {
    ensureFits(text.length + piece.length, limit);
    text += piece;
  };
  const withArgs = (piece: string) => replaceCapped(piece, /\{\{args\}\}/g, () => args, limit);
  // `!{…}` and `@{…}` with balanced braces, scanned left to right
  for (let i = 0; i < template.length;) {
    const start = template.slice(i).search(/[!@]\{/);
    if (start === -1) {
      add(withArgs(template.slice(i)));
      break;
    }
    const at = i + start;
    add(withArgs(template.slice(i, at)));
    const end = closingBrace(template, at + 1);
    if (end === -1) {
      add(withArgs(template.slice(at)));
      break;
    }
    const inner = template.slice(at + 2, end);
    add(template[at] === "!" ? await geminiShell(inner, args, deps, out, limit) : await fileText(inner.trim(), deps, out));
    i = end + 1;
  }
  if (!usesArgs && args.trim()) {
    ensureFits(text.length + args.length + 2, limit);
    text = `${text.trimEnd()}\n\n${args}`;
  }
  out.text = text;
  return out;
}

async function shellOutput(command: string, deps: RenderDeps, out: RenderedCommand): Promise<string> {
  try {
    const output = await deps.runShell(command);
    out.shell.push({ command, ok: true });
    return output.trimEnd();
  } catch (error) {
    out.shell.push({ command, ok: false });
    return `[output of \`${command}\` not included: ${(error as Error).message}]`;
  }
}

async function fileText(path: string, deps: RenderDeps, out: RenderedCommand): Promise<string> {
  try {
    const text = await deps.readFile(path);
    out.files.push(path);
    return text;
  } catch (error) {
    return `[contents of ${path} not included: ${(error as Error).message}]`;
  }
}

/** Index of the `}` closing the `{` at `open`, or -1. */
function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return i;
  }
  return -1;
}

/** Words of an argument string, honouring single and double quotes. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  for (const m of text.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3]!));
  return words;
}

/**
 * A Gemini `!{…}` line's output, with `{{args}}` quoted for where each stands (see ShellLexer.insert: `grep "{{args}}"`
 * keeps the arguments literal too); a line where one stands where no quoting holds (after a `\`, in backticks, …) is not run.
 */
async function geminiShell(inner: string, args: string, deps: RenderDeps, out: RenderedCommand, limit: Limit): Promise<string> {
  const [first, ...rest] = inner.split("{{args}}");
  const lexer = new ShellLexer();
  lexer.feed(first!);
  let command = first!;
  let unsafe = false;
  for (const piece of rest) {
    const quoted = lexer.insert(args);
    unsafe ||= quoted.unsafe;
    ensureFits(command.length + quoted.text.length + piece.length, limit);
    command += quoted.text + piece;
    lexer.feed(piece);
  }
  if (!unsafe) return shellOutput(command, deps, out);
  out.shell.push({ command, ok: false });
  return `[output of \`${inner}\` not included: {{args}} stands where keel cannot quote the arguments safely (after a \\, in backticks, \${…}, arithmetic, a comment or a here-document); write it as a word of its own or inside quotes]`;
}

function fenced(text: string): string {
  const fence = text.includes("```") ? "~~~~" : "```";
  return `${fence}\n${text.trimEnd()}\n${fence}`;
}

/** `text.replace(re, fn)` with an async `fn`, called one match at a time in order (shell commands run one by one); `between` maps the text between matches; refused (ensureFits) past the limit. */
async function replaceAsync(text: string, re: RegExp, fn: (...m: string[]) => Promise<string>, between: (t: string) => string, limit: Limit): Promise<string> {
  let out = "";
  let last = 0;
  for (const m of text.matchAll(re)) {
    const piece = between(text.slice(last, m.index)) + (await fn(...(m as unknown as string[])));
    ensureFits(out.length + piece.length, limit);
    out += piece;
    last = m.index + m[0].length;
  }
  const rest = between(text.slice(last));
  ensureFits(out.length + rest.length, limit);
  return out + rest;
}
