/** Global options that take a value (see bin/cli.ts). */
const VALUE_OPTIONS = new Set(["--cwd"]);
/** Global flags. */
const FLAGS = new Set(["--json", "--trust", "--yes"]);

/**
 * The command line with `chat` inserted where the user named no command: `keel --resume ID` (on
 * any stdin; `keel chat` says when it needs a terminal) and `keel` alone on a terminal open the
 * interactive session, as does `keel --model M` (chat's `--model`, passed on). Anything else (a command, `--help`,
 * `--version`) is returned unchanged.
 */
export function chatArgv(argv: readonly string[], interactive: boolean): string[] {
  const globals: string[] = [];
  let resume: string | undefined;
  /** `--model M` / `--model=M`: `keel chat`'s own option, given to it. */
  const model: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (VALUE_OPTIONS.has(arg) && i + 1 < argv.length) globals.push(arg, argv[++i]!);
    else if (FLAGS.has(arg) || [...VALUE_OPTIONS].some((o) => arg.startsWith(o + "="))) globals.push(arg);
    else if (arg === "--resume" && i + 1 < argv.length && resume === undefined) resume = argv[++i]!;
    else if (arg === "--model" && i + 1 < argv.length && !model.length) model.push(arg, argv[++i]!);
    else if (arg.startsWith("--model=") && !model.length) model.push(arg);
    else return [...argv];
  }
  if (resume !== undefined) return [...globals, "chat", "--resume", resume, ...model];
  // `keel --model M` off a terminal: `keel chat` says it needs one (not "unknown option")
  return interactive || model.length ? [...globals, "chat", ...model] : [...argv];
}
