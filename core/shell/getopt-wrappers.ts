/**
 * The wrappers `unwrapCommand` reads with getopt's rules (`sudo`, `env`, `timeout`, `xargs`, `nice`, …):
 * for each, the options taking a value, the words it takes before its command, and how one option
 * word is read.
 */

/** Options (per wrapper) that take the next word as their value. */
export const VALUE_OPTIONS: Record<string, ReadonlySet<string>> = {
  exec: new Set(["-a"]),
  env: new Set(["-u", "-C", "-S", "-a", "--unset", "--chdir", "--split-string", "--argv0"]),
  sudo: new Set([
    "-u",
    "-g",
    "-C",
    "-D",
    "-h",
    "-p",
    "-r",
    "-t",
    "-T",
    "-U",
    "-R",
    "--user",
    "--group",
    "--close-from",
    "--chdir",
    "--host",
    "--prompt",
    "--role",
    "--type",
    "--command-timeout",
    "--other-user",
    "--chroot",
  ]),
  doas: new Set(["-u", "-C"]),
  nice: new Set(["-n", "--adjustment"]),
  timeout: new Set(["-s", "-k", "--signal", "--kill-after"]),
  stdbuf: new Set(["-i", "-o", "-e", "--input", "--output", "--error"]),
  xargs: new Set([
    "-a",
    "-d",
    "-E",
    "-I",
    "-L",
    "-n",
    "-P",
    "-s",
    "--arg-file",
    "--delimiter",
    "--max-args",
    "--max-procs",
    "--max-chars",
    "--process-slot-var",
  ]),
  ionice: new Set(["-c", "-n", "-p", "-P", "-u", "--class", "--classdata", "--pid", "--pgid", "--uid"]),
  command: new Set(),
  builtin: new Set(),
  nohup: new Set(),
  time: new Set(["-f", "-o", "--format", "--output"]),
  setsid: new Set(),
  // Multi-call programs: `busybox rm x` is `rm x`.
  busybox: new Set(),
  toybox: new Set(),
  chroot: new Set(["--userspec", "--groups"]),
  taskset: new Set(),
  chrt: new Set(["-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"]),
  flock: new Set(["-w", "--wait", "--timeout", "-E", "--conflict-exit-code"]),
  fakeroot: new Set(["-l", "-s", "-i", "-b", "--lib", "--faked"]),
  strace: new Set([
    "-o",
    "-e",
    "-p",
    "-s",
    "-u",
    "-E",
    "-a",
    "-b",
    "-I",
    "-O",
    "-P",
    "-S",
    "-X",
    "--output",
    "--env",
    "--user",
    "--attach",
    "--trace",
    "--trace-path",
    "--signal",
    "--status",
    "--string-limit",
  ]),
  unshare: new Set([
    "-S",
    "-G",
    "-R",
    "-w",
    "--setuid",
    "--setgid",
    "--root",
    "--wd",
    "--map-user",
    "--map-group",
    "--map-users",
    "--map-groups",
    "--propagation",
    "--load-interp",
  ]),
  watch: new Set(["-n", "-q", "--interval", "--equexit"]),
};

/** Words a wrapper takes before its command (`timeout 5 rm`, `chroot /srv rm`, `taskset 0x1 rm`, `chrt 10 rm`, `flock /tmp/lock rm`). */
export const LEADING_WORDS: Record<string, number> = { timeout: 1, chroot: 1, taskset: 1, chrt: 1, flock: 1 };

/** Options whose value, if any, is written in the same word (`xargs -i{}`, `-e`, `-l5`, `--replace=%`): the rest of the word is theirs, the next word never is. */
export const OPTIONAL_VALUE: Record<string, readonly string[]> = {
  xargs: ["-e", "-i", "-l", "--eof", "--replace", "--max-lines"],
  watch: ["-d", "--differences"],
};

/**
 * How getopt reads one option word of a wrapper: `name` is the value option it is (or abbreviates:
 * `--sig` is `--signal`; in a cluster such as `-Eu`, the first letter taking a value), undefined for a
 * flag; `value` is the value written in the same word (`--signal=KILL`, `-uroot`), undefined when it
 * is the next word. A short option with an optional value (`xargs -i{}`) takes the rest of the word.
 */
export function readOption(word: string, values: ReadonlySet<string>, optional: readonly string[]): { name?: string; value?: string } {
  if (word.startsWith("--")) {
    const eq = word.indexOf("=");
    const written = eq === -1 ? word : word.slice(0, eq);
    const value = eq === -1 ? undefined : word.slice(eq + 1);
    // getopt_long accepts any unambiguous prefix; an ambiguous one is an error, so nothing runs either way.
    const known = (set: Iterable<string>) =>
      [...set].find((v) => v === written) ?? (written.length > 2 ? [...set].find((v) => v.startsWith(written)) : undefined);
    const name = known(values);
    if (name !== undefined) return { name, ...(value !== undefined ? { value } : {}) };
    const maybe = known(optional);
    return maybe === undefined ? {} : { name: maybe, value: value ?? "" };
  }
  for (let k = 1; k < word.length; k++) {
    const option = `-${word[k]!}`;
    if (values.has(option)) return k + 1 < word.length ? { name: option, value: word.slice(k + 1) } : { name: option };
    if (optional.includes(option)) return { name: option, value: word.slice(k + 1) };
  }
  return {};
}
