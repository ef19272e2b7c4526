import { LEADING_WORDS, OPTIONAL_VALUE, readOption, VALUE_OPTIONS } from "./getopt-wrappers.js";
import { RUNNERS } from "./runners.js";
import { mayBeOption } from "./wrapper-options.js";

/** Where `unwrapCommand` reports what a wrapper runs. */
export interface UnwrapSink {
  /**
   * A command a wrapper runs (`sudo rm x` → `rm x`), name as written; `sameProgram`: the wrapper only
   * finds and starts the program it names (`npx rimraf x`), so the two are one command to allow rules.
   */
  command(argv: string[], sameProgram?: boolean): void;
  /** A literal script a wrapper runs (`bash -c '…'`, `eval "…"`): parse it too. */
  script(text: string): void;
  /** Something that runs code keel cannot see. */
  unresolved(why: string): void;
}

/** Shells whose `-c STRING` is parsed recursively; without `-c` they run a file or their input. */
const SHELLS = new Set(["bash", "rbash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "fish"]);

/** The last path component: `/bin/rm` → `rm`. */
export function baseName(name: string): string {
  const i = name.lastIndexOf("/");
  return i === -1 || i === name.length - 1 ? name : name.slice(i + 1);
}

/**
 * Reports what a simple command runs through the usual wrappers — `command`, `builtin`, `exec`,
 * `env`, `sudo`, `doas`, `time`, `nice`, `nohup`, `timeout`, `xargs`, `stdbuf`, `setsid`, `ionice`, `busybox`,
 * `chroot`, `taskset`, `chrt`, `flock`, `fakeroot`, `strace`, `unshare`, `watch`,
 * `find -exec`, `bash|sh|zsh -c`, `eval` and `trap` on literal strings, and the programs of `RUNNERS`
 * (`su -c`, `script -c`, `parallel`, `ssh`, `docker exec`, `kubectl exec`, `npx`, …) — recursively; a command `xargs`
 * runs is also reported with a placeholder for the words xargs appends. `literal[i]` says
 * whether `argv[i + 1]` is a literal word. `source`/`.`, shells without `-c`, and non-literal
 * scripts are unresolved.
 */
export function unwrapCommand(argv: string[], literal: boolean[], sink: UnwrapSink, depth = 0, oneWord: boolean[] = literal): void {
  if (depth > 8) return sink.unresolved("wrappers nested more than 8 levels deep");
  const name = baseName(argv[0]!);
  const args = argv.slice(1);
  const isLiteral = (i: number) => literal[i] !== false;
  if (name === "eval") {
    if (args.every((_, i) => isLiteral(i))) sink.script(args.join(" "));
    else sink.unresolved("`eval` of a string that is not literal");
    return;
  }
  if (name === "trap") return unwrapTrap(args, isLiteral, sink);
  if (name === "source" || name === ".") return sink.unresolved(`\`${name} ${args[0] ?? ""}\` runs a file keel cannot check`);
  if (SHELLS.has(name)) return unwrapShell(name, args, isLiteral, sink);
  if (name === "find") return unwrapFind(args, isLiteral, sink, depth);
  const runner = Object.hasOwn(RUNNERS, name) ? RUNNERS[name] : undefined;
  if (runner)
    return runner(args, isLiteral, {
      run: (inner, innerLiteral, sameProgram) => {
        if (innerLiteral[0] === false) return sink.unresolved(`\`${name}\` runs a command whose name is not literal`);
        sink.command(inner, sameProgram);
        unwrapCommand(inner, innerLiteral.slice(1), sink, depth + 1);
      },
      script: (text) => sink.script(text),
      unresolved: (why) => sink.unresolved(why),
      oneWord: (i) => oneWord[i] !== false,
    });
  // Own keys only: a program named `valueOf` or `constructor` is no wrapper.
  const values = Object.hasOwn(VALUE_OPTIONS, name) ? VALUE_OPTIONS[name] : undefined;
  if (!values) return;
  let i = 0;
  let leading = Object.hasOwn(LEADING_WORDS, name) ? LEADING_WORDS[name]! : 0;
  const replace: string[] = [];
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      i++;
      break;
    }
    if (name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) continue;
    if (a.startsWith("-") && a.length > 1) {
      // `env -"$X"` could be `-S 'rm x'`: an option keel cannot read could take any word as its value.
      if (!isLiteral(i)) return sink.unresolved(`\`${name}\` has an option that is not literal (\`${a}\`)`);
      const option = readOption(a, values, (Object.hasOwn(OPTIONAL_VALUE, name) && OPTIONAL_VALUE[name]) || []);
      // `xargs -I% sh -c %`: every word holding the replace string is what xargs reads.
      if (name === "xargs" && (option.name === "-I" || option.name === "-i" || option.name === "--replace"))
        replace.push(option.value || (option.name === "-I" ? (args[i + 1] ?? "") : "{}"));
      if (name === "env" && (option.name === "-S" || option.name === "--split-string")) {
        // `env -S 'rm' -rf x` runs `rm -rf x`: the split string, then the words after it.
        const text = option.value ?? args[i + 1];
        const after = option.value === undefined ? i + 2 : i + 1;
        if (text !== undefined && (option.value !== undefined || isLiteral(i + 1))) sink.script([text, ...args.slice(after)].join(" "));
        else sink.unresolved("`env -S` with a string that is not literal");
        return;
      }
      if (option.name !== undefined && option.value === undefined) {
        // `sudo -u $U rm x`: an unquoted value may be several words, and the command would start among them.
        if (i + 1 < args.length && oneWord[i + 1] === false) return sink.unresolved(`\`${name} ${a}\` has a value that may expand to several words`);
        i++;
      }
      continue;
    }
    // Options end at the first word that is none (getopt's `+`): after the leading words, the command starts.
    if (leading > 0 && oneWord[i] === false) return sink.unresolved(`\`${name}\` has a word that may expand to several (\`${a}\`)`);
    // `timeout "$T" 5 rm x`: with `T=-v`, 5 is the duration and `rm x` the command.
    if (leading > 0 && !isLiteral(i) && mayBeOption(a))
      return sink.unresolved(`\`${name}\` has a word that is not literal (\`${a}\`), which could be an option`);
    if (leading > 0 && --leading === 0) i++;
    if (leading > 0) continue;
    break;
  }
  const rest = args.slice(i);
  const restLiteral = rest.map((word, k) => literal[i + k] !== false && !replace.some((r) => r !== "" && word.includes(r)));
  if (rest.length === 0) return;
  // `flock /tmp/lock -c 'rm x'`: a script after the lock file.
  if (name === "flock" && (rest[0] === "-c" || rest[0] === "--command"))
    return rest[1] !== undefined && restLiteral[1] ? sink.script(rest[1]) : sink.unresolved("`flock -c` with a script that is not literal");
  if (restLiteral[0] === false) return sink.unresolved(`\`${name}\` runs a command whose name is not literal`);
  sink.command(rest);
  // `watch rm x` runs its words joined, with `sh -c`: that script is what runs, and parsing it unwraps what it runs.
  // Not unwrapped as words too: each `watch` would double the work (`watch watch … true`, 2^n commands, ran out of memory).
  if (name === "watch") return restLiteral.every(Boolean) ? sink.script(rest.join(" ")) : sink.unresolved("`watch` of a command that is not literal");
  if (name !== "xargs") return unwrapCommand(rest, restLiteral.slice(1), sink, depth + 1);
  // xargs appends the words it reads to the command: `… | xargs rm` runs `rm WORDS`, so it must meet `rm *` rules too,
  // and a wrapper it runs takes its command from them (`… | xargs env`, `… | xargs sh -c`): not literal.
  sink.command([...rest, "<xargs input>"]);
  unwrapCommand([...rest, "<xargs input>"], [...restLiteral.slice(1), false], sink, depth + 1);
}

/** `bash -c 'script'`: the script is parsed too; `bash FILE` and `bash` reading its input are unresolved. */
function unwrapShell(name: string, args: string[], isLiteral: (i: number) => boolean, sink: UnwrapSink): void {
  let dashC = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--" || a === "-") continue;
    if (a.startsWith("--")) continue;
    if ((a.startsWith("-") || a.startsWith("+")) && a.length > 1) {
      if (/^-[a-zA-Z]*i/.test(a)) return sink.unresolved(`\`${name} -i\`: an interactive shell first runs the file \`$ENV\` or its rc file names`);
      if (a.startsWith("-") && a.slice(1).includes("c")) dashC = true;
      if (/^[-+][oO]$/.test(a)) i++;
      continue;
    }
    if (!dashC) return sink.unresolved(`\`${name} ${a}\` runs a script file keel cannot check`);
    if (isLiteral(i)) sink.script(a);
    else sink.unresolved(`\`${name} -c\` with a script that is not literal`);
    return;
  }
  if (!args.some((a) => a === "--version" || a === "--help")) sink.unresolved(`\`${name}\` reading commands from its input`);
}

/** `trap 'ACTION' SIGNAL…`: the action is a script the shell runs later (as `eval` would); listing and resetting run nothing. */
function unwrapTrap(args: string[], isLiteral: (i: number) => boolean, sink: UnwrapSink): void {
  const i = args[0] === "--" ? 1 : 0;
  if (i === 0 && args[0]?.startsWith("-") && args[0] !== "-") return;
  if (args.length - i < 2 || args[i] === "-") return;
  if (isLiteral(i)) sink.script(args[i]!);
  else sink.unresolved("`trap` with an action that is not literal");
}

/** `find … -exec CMD … ;` and friends: CMD is a command. */
function unwrapFind(args: string[], isLiteral: (i: number) => boolean, sink: UnwrapSink, depth: number): void {
  for (let i = 0; i < args.length; i++) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(args[i]!)) continue;
    let end = i + 1;
    while (end < args.length && args[end] !== ";" && args[end] !== "+") end++;
    const inner = args.slice(i + 1, end);
    // `{}` is a file find found: `find /bin -name rm -exec {} -rf x \;` runs it.
    const innerLiteral = inner.map((word, k) => isLiteral(i + 1 + k) && !word.includes("{}"));
    if (inner.length) {
      if (!innerLiteral[0]) sink.unresolved("`find -exec` runs a command whose name is not literal");
      else {
        sink.command(inner);
        unwrapCommand(inner, innerLiteral.slice(1), sink, depth + 1);
      }
    }
    i = end;
  }
}
