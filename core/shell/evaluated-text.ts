import { environmentCode } from "./git-config.js";
import type { DoubleQuotedChild, ParameterExpansionPart, Word, WordPart } from "unbash";

/**
 * Text that bash itself runs as code later, after the parser has seen it as a quoted string: a
 * subscript in a variable name or arithmetic (`printf -v 'a[$(rm x)]' v`, `read`, `declare`,
 * `test -v`, `[[ -v … ]]`, `let`, `declare -i`, a value `$((x))` evaluates), `PS4` (expanded for
 * each command under `set -x`), aliases, `hash -p`, `BASH_ENV`, `mapfile -C` callbacks.
 */

/** True when `text` holds a subscript with a command substitution (`a[$(cmd)]`, ``a[`cmd`]``), which bash runs wherever it evaluates the text as a variable name or arithmetic. */
export function subscriptCode(text: string): boolean {
  const open = text.indexOf("[");
  return open !== -1 && (text.includes("$(", open) || text.includes("`", open));
}

/**
 * The text of `word` after quote removal, with each expansion in it written `${_}` (text keel cannot
 * know): what bash may evaluate again. The expansions themselves are parsed where they stand, so
 * looking into this text finds each command once.
 */
export function quotedText(word: Word): string {
  return word.parts ? partsText(word.parts) : word.value;
}

function partsText(parts: readonly (WordPart | DoubleQuotedChild)[]): string {
  let out = "";
  for (const part of parts) {
    if (part.type === "Literal" || part.type === "SingleQuoted" || part.type === "AnsiCQuoted") out += part.value;
    else if (part.type === "DoubleQuoted" || part.type === "LocaleString") out += partsText(part.parts);
    else if ((part.type === "Glob" || part.type === "ExtendedGlob" || part.type === "BraceExpansion") && !/[$`]/.test(part.text)) out += part.text;
    else out += "${_}";
  }
  return out;
}

/** `text` as one double-quoted argument (of `:`, at offset `QUOTED_AT`): parsing it finds the substitutions bash would run when it expands the text. */
export function asQuotedWord(text: string): string {
  return `: "${text.replace(/["\\]/g, "\\$&")}"`;
}

/** Where the quoted word of `asQuotedWord` starts. */
export const QUOTED_AT = 2;

/** Commands whose words can name a variable they set. */
const SETS_VARIABLES = new Set([
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "printf",
  "read",
  "mapfile",
  "readarray",
  "getopts",
  "wait",
  "env",
  "sudo",
]);

/** An assignment of a simple command: its name, and its value when static. */
export interface AssignmentText {
  name: string;
  value: string | undefined;
}

/**
 * What in one simple command (`argv` after quote removal, its assignments) makes bash run code the
 * parser saw only as text: `scripts` to parse as well (a static `PS4` value, as a quoted word), and
 * reasons for what keel cannot check (an alias or `hash -p` that makes a name run something else,
 * `BASH_ENV`, a dynamic `PS4`, `enable -f`, `mapfile -C`). Never throws.
 */
export function evaluatedText(
  argv: readonly string[],
  assignments: readonly AssignmentText[],
): { scripts: string[]; commands: string[]; unresolved: string[] } {
  const scripts: string[] = [];
  const commands: string[] = [];
  const unresolved: string[] = [];
  const [name, ...args] = argv;
  const options = args.filter((a) => /^-[a-zA-Z]+$/.test(a)).join("");
  if (name === "alias" && (assignments.length || args.some((a) => a.includes("="))))
    unresolved.push("`alias NAME=…`: bash then runs the alias's text where a command keel checks by that name stands");
  if (name === "hash" && options.includes("p")) unresolved.push("`hash -p`: a command name then runs another program");
  if (name === "enable" && options.includes("f")) unresolved.push("`enable -f` loads a builtin from a file");
  if ((name === "mapfile" || name === "readarray") && options.includes("C")) unresolved.push(`\`${name} -C\` runs a callback string`);
  // Whatever the command (`timeout 5 env BASH_ENV=… bash`), such a word sets up code for a bash it starts.
  for (const word of args)
    if (word.startsWith("BASH_ENV=") && !SETS_VARIABLES.has(name!)) unresolved.push("`BASH_ENV` makes each bash started later run a file keel cannot check");
    else if (/^BASH_FUNC_[^=]*%%=/.test(word)) unresolved.push("an exported function (`BASH_FUNC_…%%=`) that a bash started later runs");
  // Words that name a variable a builtin sets (`printf -v PS4 …`, `read BASH_ENV`, `declare 'BASH_ALIASES[ls]=rm'`, `env BASH_ENV=…`) and assignments.
  const named = [
    ...(SETS_VARIABLES.has(name!) ? args : []).map((a) => ({ variable: /^[A-Za-z_]\w*(?=$|=|\[|\+=)/.exec(a)?.[0], value: undefined })),
    ...assignments.map((a) => ({ variable: a.name, value: a.value })),
  ];
  // `GIT_PAGER='rm x' git log`, `export EDITOR=…`: sh runs the value later (`env`'s words are its assignments).
  const declares = name === "env" || (DECLARES.has(name!) && !options.includes("f"));
  // `printf '%s' PAGER` prints the word; only `printf -v NAME` sets it.
  const sets = SETS_VARIABLES.has(name!) && (name !== "printf" || options.includes("v"));
  for (const word of sets ? args : []) {
    const eq = word.indexOf("=");
    const variable = /^[A-Za-z_]\w*(?=$|=)/.exec(word)?.[0];
    if (variable === undefined || (eq === -1 && declares)) continue;
    // The word is after quote removal if static, else as written: a `$`, backtick or quote means keel cannot know it.
    const value = eq === -1 || !declares || /[$`"'\\]/.test(word.slice(eq + 1)) ? undefined : word.slice(eq + 1);
    gitEnvironment(variable, value, commands, unresolved);
  }
  for (const a of assignments) gitEnvironment(a.name, a.value, commands, unresolved);
  for (const { variable, value } of named) {
    if (variable === "BASH_ALIASES" || variable === "BASH_CMDS") unresolved.push(`\`${variable}\` changes what a command name runs`);
    else if (variable === "BASH_ENV") unresolved.push("`BASH_ENV` makes each bash started later run a file keel cannot check");
    else if (variable === "PS4" && value !== undefined) scripts.push(asQuotedWord(value));
    else if (variable === "PS4") unresolved.push("a `PS4` that is not literal: bash expands it before each command under `set -x`");
  }
  return { scripts, commands, unresolved };
}

/** Builtins whose `NAME=value` words set a variable to that value (`export GIT_PAGER=less`); a bare `NAME` keeps the value it has. */
const DECLARES = new Set(["declare", "typeset", "local", "export", "readonly"]);

function gitEnvironment(variable: string, value: string | undefined, commands: string[], unresolved: string[]): void {
  const code = environmentCode(variable, value);
  if (code.script !== undefined) commands.push(code.script);
  if (code.unresolved) unresolved.push(code.unresolved);
}

/** Why bash may run code held in a variable's value where this `${…}` is expanded (`${x@P}` prompt-expands it, `${!x}` evaluates the name it holds, subscript included), or undefined. */
export function evaluatedExpansion(part: ParameterExpansionPart): string | undefined {
  if (part.operation?.type === "Transform" && part.operation.operand.value === "P")
    return `\`${part.text}\` expands a value as a prompt, running any \`$(…)\` in it`;
  const listing = part.operation?.type === "Names" || part.index?.value === "@" || part.index?.value === "*";
  if (part.prefix === "!" && !listing) return `\`${part.text}\` expands the variable its value names, running any \`$(…)\` in that name's subscript`;
  return undefined;
}
