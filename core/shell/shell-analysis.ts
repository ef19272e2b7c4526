import type * as Unbash from "unbash";
import type { Command, SyntaxNode, Word } from "unbash";
import { asQuotedWord, evaluatedExpansion, evaluatedText, QUOTED_AT, quotedText, subscriptCode } from "./evaluated-text.js";
import { unwrapCommand } from "./unwrap-command.js";

/** The parts of the unbash module keel uses (loaded on demand: most commands never check a shell command). */
export type ShellParser = Pick<typeof Unbash, "parse" | "forEachChild">;

/** A simple command as keel checks it: its words after quote removal. */
export interface SimpleCommand {
  /** Words after quote removal; words with expansions keep their source text (`$HOME`). */
  argv: string[];
  /** True for the command as written at the top level of the script (not nested or unwrapped). */
  topLevel: boolean;
  /** Its static variable assignments (`NODE_OPTIONS=--require=./x.js node …`, `export BASH_ENV=./x.sh`), as `NAME=value`; absent when none. */
  assignments?: string[];
  /** True for a command a package runner starts under the name it was given (`npx rimraf x` → `rimraf x`): the same call, not another command, to allow rules. */
  sameProgram?: boolean;
  /** The file its standard input is redirected from, when static (`bash < x.sh`); absent otherwise. */
  input?: string;
  /** The text of a here-document or here-string on its standard input (`bash <<'EOF' … EOF`), as written; absent otherwise. */
  stdinText?: string;
}

/** What keel could establish statically about a shell command line. */
export interface ShellAnalysis {
  /** Every simple command found: as written, inside substitutions, compound commands and functions, and what wrappers (`sudo`, `xargs`, `bash -c '…'`, `eval "…"`) run. */
  commands: SimpleCommand[];
  /** Parts keel could not resolve statically, described for the user (a command name from a variable, `eval` of a non-literal, `source` of a file, a parse error). */
  unresolved: string[];
  /** True when the line is exactly one simple command with only static words, no redirection, substitution or control operator: the only shape an allow rule may match. */
  simple: boolean;
}

/** Nesting limit for wrappers and literal scripts (`bash -c "eval 'sh -c …'"`); deeper is unresolved. */
const MAX_DEPTH = 8;

/** Nodes that make a line more than one simple command (lists, pipelines, compound commands, substitutions, functions). */
const STRUCTURE = new Set([
  "Pipeline",
  "AndOr",
  "Subshell",
  "BraceGroup",
  "If",
  "For",
  "ArithmeticFor",
  "Select",
  "While",
  "Case",
  "Function",
  "Coproc",
  "Redirected",
  "CommandExpansion",
  "ProcessSubstitution",
  "TestCommand",
  "ArithmeticCommand",
  "Time",
  "Negation",
]);

/**
 * Parses a command line with a real bash parser (unbash) and lists every simple command it would
 * run. Never throws: what cannot be checked statically is listed in `unresolved`.
 */
export function analyzeShell(command: string, parser: ShellParser): ShellAnalysis {
  const out: ShellAnalysis = { commands: [], unresolved: [], simple: false };
  const shape = collect(parser, command, 0, out, true);
  out.simple =
    shape.commands === 1 && shape.plain && !shape.structured && out.unresolved.length === 0 && out.commands.filter((c) => !c.sameProgram).length === 1;
  return out;
}

/** The shape of a parsed script: how many simple commands, whether they are plain, whether there is more structure. */
interface Shape {
  commands: number;
  plain: boolean;
  structured: boolean;
}

/**
 * Parses `script` and records its commands and what wrappers in it run. `quoted`: the script is
 * text bash may expand later, made by `asQuotedWord`: its word is not looked into again, and a part
 * that does not parse is text bash could not expand either (a commit message with one backtick).
 */
function collect(parser: ShellParser, script: string, depth: number, out: ShellAnalysis, top: boolean, quoted = false): Shape {
  const shape: Shape = { commands: 0, plain: true, structured: false };
  if (depth > MAX_DEPTH) {
    out.unresolved.push(`commands nested more than ${MAX_DEPTH} levels deep`);
    return shape;
  }
  const ast = parser.parse(script);
  if (!quoted) for (const e of ast.errors ?? []) out.unresolved.push(`a parse error (${e.message} at offset ${e.pos})`);
  if (ast.commands.length !== 1 || ast.commands[0]!.background) shape.structured = true;
  const visit = (node: SyntaxNode): void => {
    if (node.type === "Command") {
      shape.commands++;
      if (!record(parser, node, depth, out, top)) shape.plain = false;
    } else if (STRUCTURE.has(node.type)) shape.structured = true;
    // A quoted `a[$(cmd)]` is text to the parser, code to bash wherever it evaluates a name or arithmetic (`printf -v`, `test -v`, `$((x))`).
    else if (node.type === "Word" && !(quoted && node.pos === QUOTED_AT)) {
      const text = quotedText(node);
      if (subscriptCode(text)) collect(parser, asQuotedWord(text), depth + 1, out, false, true);
    } else if (node.type === "ParameterExpansion") {
      const why = evaluatedExpansion(node);
      if (why) out.unresolved.push(why);
    }
    parser.forEachChild(node, visit);
  };
  visit(ast);
  return shape;
}

/** Records one simple command and what it runs through wrappers; returns whether it is plain (static words, no assignment or redirection). */
function record(parser: ShellParser, node: Command, depth: number, out: ShellAnalysis, top: boolean): boolean {
  const assigned = [...node.prefix, ...node.suffix].flatMap((a) =>
    a.type === "Assignment" ? [{ name: a.name, value: a.value.type === "Word" ? staticValue(a.value, false) : undefined }] : [],
  );
  const evaluated = (argv: string[]): void => {
    const later = evaluatedText(argv, assigned);
    for (const script of later.scripts) collect(parser, script, depth + 1, out, false, true);
    for (const script of later.commands) collect(parser, script, depth + 1, out, false);
    out.unresolved.push(...later.unresolved);
  };
  const name = node.name && staticValue(node.name, false);
  if (name === undefined) evaluated([]);
  if (!node.name) return false; // `X=1` or `> file` alone
  if (name === undefined) {
    out.unresolved.push(`the command name \`${node.name.text}\` comes from an expansion, substitution or pattern`);
    return false;
  }
  const args = node.suffix.filter((s): s is Word => s.type === "Word");
  const argv = [name, ...args.map((w) => staticValue(w, true) ?? w.text)];
  evaluated(argv);
  const assignments = assigned.flatMap((a) => (a.value === undefined ? [] : [`${a.name}=${a.value}`]));
  const input = node.redirects
    .flatMap((r) =>
      r.type === "Redirect" && r.operator === "<" && r.target && (!r.descriptor || (r.descriptor.type === "FileDescriptor" && r.descriptor.value === 0))
        ? [staticValue(r.target, false)]
        : [],
    )
    .at(-1);
  const here = node.redirects.findLast((r) => r.type === "HereDoc" || r.type === "HereString");
  const stdinText = here?.type === "HereDoc" ? here.body.text : here?.target && (staticValue(here.target, false) ?? here.target.text);
  out.commands.push({
    argv,
    topLevel: top && depth === 0,
    ...(assignments.length ? { assignments } : {}),
    ...(input !== undefined ? { input } : {}),
    ...(stdinText !== undefined ? { stdinText } : {}),
  });
  unwrapCommand(
    argv,
    args.map((w) => staticValue(w, false) !== undefined),
    {
      command: (inner, sameProgram) => out.commands.push({ argv: inner, topLevel: false, ...(sameProgram ? { sameProgram } : {}) }),
      script: (text) => void collect(parser, text, depth + 1, out, false),
      unresolved: (why) => out.unresolved.push(why),
    },
    0,
    args.map(oneWord),
  );
  return args.every((w) => staticValue(w, false) !== undefined) && node.redirects.length === 0 && node.prefix.length === 0;
}

/**
 * Whether the word stays one word whatever its expansions hold: no unquoted expansion or pattern, no `"$@"` or
 * `"${a[@]}"` (an `@` in a quoted expansion); a quoted literal `@` (`"@scope/web"`) is text.
 */
function oneWord(word: Word): boolean {
  if (!word.parts) return true;
  return word.parts.every((part) =>
    part.type === "DoubleQuoted"
      ? part.parts.every((p) => p.type === "Literal" || !p.text.includes("@"))
      : STATIC_PARTS.has(part.type) || part.type === "LocaleString",
  );
}

/** Part types whose value is fixed text after quote removal. */
const STATIC_PARTS = new Set(["Literal", "SingleQuoted", "AnsiCQuoted"]);
/** Globs and brace expansions: fixed text in an argument (matched as written), unknown in a command name. */
const PATTERN_PARTS = new Set(["Glob", "ExtendedGlob", "BraceExpansion"]);

/** The word after quote removal when it has no expansion (`allowPatterns`: globs count as text), else undefined. */
export function staticValue(word: Word, allowPatterns: boolean): string | undefined {
  if (!word.parts) return word.value;
  for (const part of word.parts) {
    if (STATIC_PARTS.has(part.type)) continue;
    if (allowPatterns && PATTERN_PARTS.has(part.type)) continue;
    if ((part.type === "DoubleQuoted" || part.type === "LocaleString") && part.parts.every((p) => p.type === "Literal")) continue;
    return undefined;
  }
  return word.value;
}
