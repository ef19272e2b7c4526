/** Global options that take a value (see bin/cli.ts). */
const VALUE_OPTIONS = new Set(["--cwd"]);
/** Global flags. */
const FLAGS = new Set(["--json", "--trust", "--yes"]);

/**
 * The command line with `chat` inserted where the user named no command: `keel --resume ID` (on
 * any stdin; `keel chat` says when it needs a terminal) and `keel` alone on a terminal open the
 * interactive session. Anything else (a command, `--help`, `--version`) is returned unchanged.
 */
export function chatArgv(argv: readonly string[], interactive: boolean): string[] {
  const globals: string[] = [];
  let resume: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (VALUE_OPTIONS.has(arg) && i + 1 < argv.length) globals.push(arg, argv[++i]!);
    else if (FLAGS.has(arg) || [...VALUE_OPTIONS].some((o) => arg.startsWith(o + "="))) globals.push(arg);
    else if (arg === "--resume" && i + 1 < argv.length && resume === undefined) resume = argv[++i]!;
    else return [...argv];
  }
  if (resume !== undefined) return [...globals, "chat", "--resume", resume];
  return interactive ? [...globals, "chat"] : [...argv];
}
