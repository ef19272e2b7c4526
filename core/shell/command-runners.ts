import { hasOption, lastValue, readOptions, type OptionSpec, type ReadOptions } from "./wrapper-options.js";

/** What a runner reports to: the command it runs (as argv, `literal[i]` for `argv[i]`), a script it runs, or what keel cannot check. */
export interface RunnerSink {
  /** A command the runner runs; `sameProgram`: the runner only finds and starts the program named (`npx rimraf x` is `rimraf x`). */
  run(argv: string[], literal: boolean[], sameProgram?: boolean): void;
  script(text: string): void;
  unresolved(why: string): void;
  /** Whether `args[i]` is one word whatever it expands to (static, or quoted: not `$X`, `*`, `"$@"`). */
  oneWord(i: number): boolean;
}

type Runner = (args: string[], isLiteral: (i: number) => boolean, sink: RunnerSink) => void;

/** Reads the options, or reports why they cannot be read and returns undefined. */
function options(name: string, args: string[], isLiteral: (i: number) => boolean, spec: OptionSpec, sink: RunnerSink, offset = 0): ReadOptions | undefined {
  const read = readOptions(name, args, isLiteral, spec, (i) => sink.oneWord(i + offset));
  if (typeof read === "string") return void sink.unresolved(read);
  return read;
}

/** Words joined with blanks and run by a shell (`ssh host rm x`, `sg group 'rm x'`): one script, all of it literal, or unresolved. */
function joinedScript(what: string, words: string[], literal: boolean[], sink: RunnerSink): void {
  if (literal.every(Boolean)) sink.script(words.join(" "));
  else sink.unresolved(`${what} runs a command line that is not literal (a shell reads it again)`);
}

const range = (from: number, to: number, isLiteral: (i: number) => boolean) => Array.from({ length: Math.max(0, to - from) }, (_, k) => isLiteral(from + k));

/** A program (`nsenter`, `setpriv`, `pkexec`, …) whose options are read exactly and whose first operand starts the command it runs. */
function plain(spec: OptionSpec, noCommand?: string, check?: (read: ReadOptions) => string | undefined): (name: string) => Runner {
  return (name) => (args, isLiteral, sink) => {
    const read = options(name, args, isLiteral, spec, sink);
    if (!read) return;
    if (read.options.some((o) => o.name === "-h" || o.name === "--help" || o.name === "--version")) return;
    const why = check?.(read);
    if (why) return sink.unresolved(why);
    if (read.rest >= args.length) return noCommand ? sink.unresolved(`\`${name}\` without a command ${noCommand}`) : undefined;
    sink.run(args.slice(read.rest), range(read.rest, args.length, isLiteral));
  };
}

const SU: OptionSpec = {
  values: ["-c", "--command", "--session-command", "-g", "--group", "-G", "--supp-group", "-s", "--shell", "-w", "--whitelist-environment"],
  flags: ["-f", "--fast", "-l", "--login", "-m", "-p", "--preserve-environment", "-P", "--pty", "-h", "--help", "-V", "--version"],
  permute: true,
};

/** `su [-] [USER [ARG…]] [-c CMD] [-s SHELL]`, `runuser` (and its `-u USER CMD…`): the shell runs `-c CMD` and the other operands. */
function su(name: string): Runner {
  const spec = name === "runuser" ? { ...SU, values: [...SU.values, "-u", "--user"] } : SU;
  return (args, isLiteral, sink) => {
    const read = options(name, args, isLiteral, spec, sink);
    if (!read) return;
    if (hasOption(read, "-h", "--help", "-V", "--version")) return;
    // `runuser -u USER -- CMD…` runs the command itself, no shell.
    if (hasOption(read, "-u", "--user")) {
      const start = read.operands.length ? read.operands[0]! : read.rest;
      if (start < args.length) sink.run(args.slice(start), range(start, args.length, isLiteral));
      return;
    }
    const operands = [...read.operands, ...Array.from({ length: args.length - read.rest }, (_, k) => read.rest + k)].filter((i) => args[i] !== "-");
    const shell = lastValue(read, "-s", "--shell");
    const command = lastValue(read, "-c", "--command", "--session-command");
    // The shell gets `-c CMD` and the operands after the user's name (`su root -- -c 'rm x'` passes `-c` on too).
    const extra = operands.slice(1);
    if (!command && !shell && !extra.length) return sink.unresolved(`\`${name}\` without \`-c\` runs a shell reading its input`);
    const argv = [shell?.value ?? "sh", ...(command ? ["-c", command.value!] : []), ...extra.map((i) => args[i]!)];
    const literal = [shell?.literal ?? true, ...(command ? [true, command.literal] : []), ...extra.map(isLiteral)];
    sink.run(argv, literal);
  };
}

/** `script [-c CMD] [FILE]`: `$SHELL -c CMD`, or without `-c` an interactive shell reading its input. */
const script: Runner = (args, isLiteral, sink) => {
  const read = options(
    "script",
    args,
    isLiteral,
    {
      values: [
        "-c",
        "--command",
        "-E",
        "--echo",
        "-I",
        "--log-in",
        "-O",
        "--log-out",
        "-B",
        "--log-io",
        "-T",
        "--log-timing",
        "-m",
        "--logging-format",
        "-o",
        "--output-limit",
      ],
      flags: ["-a", "--append", "-e", "--return", "-f", "--flush", "--force", "-q", "--quiet", "-h", "--help", "-V", "--version"],
      optional: ["-t", "--timing"],
      permute: true,
    },
    sink,
  );
  if (!read || hasOption(read, "-h", "--help", "-V", "--version")) return;
  const command = lastValue(read, "-c", "--command");
  if (!command) return sink.unresolved("`script` without `-c` runs a shell reading its input");
  if (command.literal) sink.script(command.value!);
  else sink.unresolved("`script -c` with a command that is not literal");
};

/** Input separators of GNU parallel: the words after them are arguments (or files of arguments), not the command. */
const PARALLEL_INPUT = /^::::?\+?$/;
/** A stand-in for the arguments parallel inserts: an expansion, so a command name made of one is unresolved, and `rm {}` is still `rm …`. */
const PARALLEL_ARG = '"$PARALLEL_ARG"';

/** `parallel [OPTIONS] CMD … ::: ARGS`: CMD with each argument put in (at `{}` and the like, else appended), run by a shell. */
const parallel: Runner = (args, isLiteral, sink) => {
  const end = args.findIndex((a) => PARALLEL_INPUT.test(a));
  const head = end === -1 ? args : args.slice(0, end);
  const read = options(
    "parallel",
    head,
    isLiteral,
    {
      values: [
        "-j",
        "--jobs",
        "-P",
        "--max-procs",
        "-n",
        "--max-args",
        "-N",
        "-L",
        "--max-lines",
        "-I",
        "-C",
        "--colsep",
        "-d",
        "--delimiter",
        "-a",
        "--arg-file",
        "-S",
        "--sshlogin",
        "--slf",
        "--sshloginfile",
        "--tagstring",
        "--joblog",
        "--results",
        "--res",
        "--retries",
        "--timeout",
        "--delay",
        "--env",
        "--workdir",
        "--wd",
        "--block",
        "--block-size",
        "--recstart",
        "--recend",
        "--halt",
        "--memfree",
        "--load",
        "--nice",
        "-E",
        "--tmpdir",
        "--header",
        "-s",
        "--max-chars",
        "--max-line-length-allowed",
      ],
      flags: [
        "-0",
        "--null",
        "-k",
        "--keep-order",
        "-v",
        "-u",
        "--ungroup",
        "--group",
        "--line-buffer",
        "--lb",
        "-q",
        "--quote",
        "--dry-run",
        "--dryrun",
        "-X",
        "-m",
        "--xargs",
        "-t",
        "--verbose",
        "--bar",
        "--progress",
        "--eta",
        "-r",
        "--no-run-if-empty",
        "--shuf",
        "--will-cite",
        "--tag",
        "--pipe",
        "--spreadstdin",
        "--plus",
        "--files",
        "--no-notice",
        "--silent",
        "--citation",
        "--version",
        "-h",
        "--help",
        "--noswap",
        "--round-robin",
        "--round",
        "--fg",
      ],
      optional: ["-i", "--replace", "-e", "--eof"],
    },
    sink,
  );
  if (!read || hasOption(read, "--version", "-h", "--help", "--citation")) return;
  // `{= perl =}` replacement strings (and `--tagstring` ones) run perl code keel cannot check.
  if (head.some((a) => a.includes("{="))) return sink.unresolved("`parallel` with a `{= … =}` replacement string, which runs perl code");
  const command = head.slice(read.rest);
  if (command.length === 0) {
    // Without a command, each argument is a command line: literal ones after `:::` are scripts, anything else is input keel cannot see.
    const after = end === -1 ? [] : args.slice(end + 1);
    if (end === -1 || args[end] !== ":::" || after.some((a) => PARALLEL_INPUT.test(a)) || !after.every((_, k) => isLiteral(end + 1 + k)))
      return sink.unresolved("`parallel` reading the commands it runs from its input or a file");
    for (const line of after) sink.script(line);
    return;
  }
  const replace = [lastValue(read, "-I")?.value ?? "", ...(read.options.some((o) => o.name === "-i" || o.name === "--replace") ? ["{}"] : [])].filter(Boolean);
  const placeholders = /\{(\d*(\.|\/|\/\/|\/\.|#|%)?)\}/g;
  const literal = command.map((word, k) => isLiteral(read.rest + k));
  const put = (word: string) => replace.reduce((w, r) => w.split(r).join(PARALLEL_ARG), word.replace(placeholders, PARALLEL_ARG));
  const words = command.map(put);
  const inserted = words.some((w, k) => w !== command[k]);
  // `-q`: the words are quoted, so they are one command's argv; otherwise they are joined and a shell reads them.
  if (hasOption(read, "-q", "--quote")) {
    const argv = inserted ? words : [...words, PARALLEL_ARG];
    return sink.run(
      argv,
      argv.map((w, k) => (k < literal.length ? literal[k]! && w === command[k] : false)),
    );
  }
  joinedScript("`parallel`", [...words, ...(inserted ? [] : [PARALLEL_ARG])], [...literal, true], sink);
};

/** `sg GROUP [-c] 'CMD'`: `/bin/sh -c CMD`. */
const sg: Runner = (args, isLiteral, sink) => {
  let i = args[0] === "-" ? 1 : 0;
  if (args[i]?.startsWith("-")) return; // `--help`, `--version`
  if (i < args.length && !sink.oneWord(i)) return sink.unresolved("`sg` with a group word that may expand to several");
  i++;
  if (args[i] === "-c") i++;
  if (i >= args.length) return sink.unresolved("`sg` without a command runs a shell reading its input");
  joinedScript("`sg`", args.slice(i), range(i, args.length, isLiteral), sink);
};

export { su, script, parallel, sg, plain, options, joinedScript, range };
export type { Runner };
