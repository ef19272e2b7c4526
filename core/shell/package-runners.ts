import { joinedScript, options, range, type Runner, type RunnerSink } from "./command-runners.js";
import { pnpmOption } from "./pnpm-options.js";
import { lastValue, readOptions, type OptionSpec } from "./wrapper-options.js";

/** How package runners read their options before the package: `-c` runs a shell command, `-p` names the package apart from the command. */
const NPX: OptionSpec = {
  values: [
    "-p",
    "--package",
    "-c",
    "--call",
    "-w",
    "--workspace",
    "--registry",
    "--cache",
    "--prefix",
    "--loglevel",
    "--allow-build",
    "--filter",
    "-F",
    "--resume-from",
    "-C",
    "--dir",
    "--cwd",
  ],
  flags: [
    ...["-y", "--yes", "--no", "--no-install", "-q", "--quiet", "--ws", "--workspaces", "--include-workspace-root", "--ignore-existing", "--prefer-offline"],
    ...["--prefer-online", "--offline", "-s", "--silent", "--bun", "--shell-mode", "-r", "--recursive", "--parallel", "--report-summary", "--no-bail"],
  ],
};

/**
 * `npx PKG ARGS`, `npm exec|x`, `pnpm dlx|exec`, `pnpx`, `yarn dlx|exec`, `bunx`, `bun x`: run the program
 * a package provides, so `npx rimraf@5 x` is `rimraf x` to deny and ask rules (the package's name,
 * version dropped, stands for its program). The command is the same call under another name: an
 * allow rule for `npx rimraf *` still matches it as one command. `-c`/`--call` (pnpm's `-c`:
 * `--shell-mode`, yarn's `exec`) run a shell command line.
 */
export function packageRunner(name: string): Runner {
  return (all, allLiteral, outer) => {
    const sub = { npm: ["exec", "x"], pnpm: ["dlx", "exec"], yarn: ["dlx", "exec"], bun: ["x"] }[name];
    // pnpm's `-c` is `--shell-mode`, a flag.
    const spec = name === "pnpm" ? { values: NPX.values.filter((o) => o !== "-c"), flags: [...NPX.flags, "-c"] } : NPX;
    const at = sub ? subcommandAt(name, sub, all, allLiteral, spec, outer) : -1;
    if (at === undefined) return;
    // The words without the subcommand: options before it (`npm -y exec …`) count as the runner's too.
    const index = (i: number) => (at >= 0 && i >= at ? i + 1 : i);
    const args = at >= 0 ? [...all.slice(0, at), ...all.slice(at + 1)] : all;
    const isLiteral = (i: number) => allLiteral(index(i));
    const sink: RunnerSink = { ...outer, oneWord: (i) => outer.oneWord(index(i)) };
    const read = options(sub ? `${name} ${all[at]}` : name, args, isLiteral, spec, sink);
    if (!read) return;
    const shell = name === "pnpm" ? read.options.find((o) => o.name === "-c" || o.name === "--shell-mode") : undefined;
    const call = name === "pnpm" ? undefined : lastValue(read, "-c", "--call");
    if (call) return call.literal ? sink.script(call.value!) : sink.unresolved(`\`${name} -c\` with a command that is not literal`);
    const words = args.slice(read.rest);
    const literal = range(read.rest, args.length, isLiteral);
    if (!words.length) return;
    if (shell || (name === "yarn" && all[at] === "exec")) return joinedScript(`\`${name} ${all[at]}\``, words, literal, sink);
    // Without `-p`, the first word names the package and its program: `rimraf@5` runs `rimraf`, `@scope/tool@1` runs `tool`.
    const named = lastValue(read, "-p", "--package") || (name !== "npm" && all[at] === "exec") ? words[0]! : words[0]!.replace(/^(@?[^@]+)@.*$/, "$1");
    sink.run([named, ...words.slice(1)], literal, true);
  };
}

/**
 * Where `sub` (`exec`, `x`, `dlx`) stands in `all`: after the options it may follow (`npm -y exec`, `yarn --cwd d dlx`), read
 * with `spec`; undefined when the command is another one (`npm install`), or, reported unresolved, when options keel cannot
 * read stand before a word that could be it.
 */
function subcommandAt(
  name: string,
  sub: readonly string[],
  all: string[],
  isLiteral: (i: number) => boolean,
  spec: OptionSpec,
  sink: RunnerSink,
): number | undefined {
  const read = readOptions(name, all, isLiteral, spec, (i) => sink.oneWord(i));
  if (typeof read !== "string") return !read.ended && sub.includes(all[read.rest]!) ? read.rest : undefined;
  const dd = all.indexOf("--");
  if ((dd === -1 ? all : all.slice(0, dd)).some((w) => sub.includes(w))) sink.unresolved(`${read} (before \`${sub.join("` or `")}\`)`);
  return undefined;
}

/** How a package manager reads the options before its command word (and `run`'s before the script's). */
export interface CommandWords {
  /** Options taking the next word as their value (unless written `--opt=value`). */
  values: readonly string[];
  /** Options taking none; with `unknown: "fail"`, any other option is unresolved. */
  flags?: readonly string[];
  /** yarn 1 reads an option it does not know as a flag (commander); bun's are listed; pnpm's are read by `read`. */
  unknown: "flag" | "fail";
  /** What an option does (see pnpmOption), undefined when keel cannot tell; instead of `values`/`flags`. */
  read?: (option: string) => "value" | "flag" | "set" | undefined;
}

/** Commands of both yarn 1 and yarn 2+ (another word runs a script or a dependency's program: `yarn rimraf x`). */
const YARN_COMMANDS =
  "add bin cache config exec help info init install link node pack remove run unlink unplug upgrade-interactive version why workspace workspaces";
/** pnpm's commands and aliases, and the npm commands it passes on (another word runs a script, or the command as `pnpm exec` would). */
const PNPM_COMMANDS =
  "add approve-builds audit bin c cache cat-file cat-index completion config create dedupe deploy dislink dlx doctor env exec fetch find-hash help i " +
  "ignored-builds import init install install-test it la licenses link list ll ln ls m multi outdated pack patch patch-commit patch-remove prune " +
  "publish rb rebuild recursive remove restart rm root run run-script self-update server setup start store t test tst un uni uninstall unlink up " +
  "update upgrade why access adduser bugs deprecate dist-tag docs edit issues login logout owner ping prefix profile pkg repo s se search " +
  "set-script show star stars team token unpublish unstar v version view whoami xmas";
/** bun's commands (`bun --help`) and aliases: another word runs a script, a file or a program (`bun run`). */
const BUN_COMMANDS =
  "run test x repl exec install i add a remove rm update audit outdated link unlink publish patch patch-commit pm info why build init create c upgrade " +
  "completions discord help getcompletes feedback";

const BUN_WORDS: CommandWords = {
  values: [
    ...["-r", "--preload", "--require", "--import", "-e", "--eval", "-p", "--print", "--port", "--conditions", "--fetch-preconnect", "--title"],
    ...["--max-http-header-size", "--dns-result-order", "--unhandled-rejections", "--elide-lines", "-F", "--filter", "--shell", "--env-file", "--cwd"],
    ...["-c", "--config", "-d", "--define", "--drop", "-l", "--loader", "--main-fields", "--extension-order", "--tsconfig-override", "--jsx-factory"],
    ...["--jsx-fragment", "--jsx-import-source", "--jsx-runtime", "--console-depth", "--user-agent"],
  ],
  flags: [
    ...["--watch", "--hot", "--no-clear-screen", "--smol", "--inspect", "--inspect-wait", "--inspect-brk", "--if-present", "--no-install", "-i"],
    ...["--prefer-offline", "--prefer-latest", "--expose-gc", "--no-deprecation", "--throw-deprecation", "--zero-fill-buffers", "--no-addons"],
    ...["--silent", "-b", "--bun", "--no-env-file", "--no-macros", "-h", "--help", "-v", "--version", "--revision", "--redis-preconnect"],
    ...["--sql-preconnect"],
  ],
  unknown: "fail",
};

const MANAGERS: Record<"yarn" | "pnpm" | "bun", { words: CommandWords; run: CommandWords | undefined; commands: ReadonlySet<string> }> = {
  yarn: {
    // yarn 1's options with a value (`<…>` or `[…]`: both take the next word that is no option; `yarn --help`) and yarn 2+'s `--cwd`.
    words: {
      values: [
        ...["--cwd", "--link-folder", "--global-folder", "--modules-folder", "--preferred-cache-folder", "--cache-folder", "--mutex", "--proxy"],
        ...["--https-proxy", "--network-concurrency", "--network-timeout", "--prod", "--production", "--emoji", "--scripts-prepend-node-path"],
        ...["--registry", "--use-yarnrc", "--otp"],
      ],
      unknown: "flag",
    },
    run: { values: ["--require"], unknown: "flag" },
    commands: new Set(YARN_COMMANDS.split(" ")),
  },
  pnpm: {
    // nopt's reading, by the option's type (pnpm-options.ts).
    words: { values: [], unknown: "fail", read: pnpmOption },
    // `pnpm run X` runs only a script X (a missing one is an error): no program to report.
    run: undefined,
    commands: new Set(PNPM_COMMANDS.split(" ")),
  },
  bun: { words: BUN_WORDS, run: BUN_WORDS, commands: new Set(BUN_COMMANDS.split(" ")) },
};

/** Words `bun` runs as a file (`bun run x.ts`, `bun ./tool`), read as the script of an interpreter (see `executedWords`). */
const FILE_LIKE = /\/|\.[cm]?[jt]sx?$/;

/** More commands than this read through one line (`yarn workspace a workspace b …`) are unresolved. */
const MAX_HOPS = 8;

/**
 * `yarn X ARGS` and `yarn run X ARGS`, `pnpm X ARGS`, `bun X ARGS` and `bun run X ARGS`, X not a
 * command of theirs, run the package script X or else a program X (a dependency's, from
 * `node_modules/.bin`; pnpm and bun also one on PATH, as `pnpm exec` does): to deny rules that is
 * `X ARGS`, the same call under another name (as `npx`'s). A script's text is the workspace's, pinned
 * as such (see `package-scripts.ts`); reporting X too only adds a check. Also read: `yarn workspace
 * NAME …`, `yarn workspaces foreach … X`, `yarn DIR …` (yarn 2+ runs the rest in DIR), `pnpm recursive
 * …`, `bun exec 'CMD'` (a script); `dlx`, `exec` and `x` as `npx`. `npm run X` runs only a script.
 * A command word that is not literal, or an option keel cannot read before it, is unresolved.
 */
export function packageManager(name: "yarn" | "pnpm" | "bun"): Runner {
  const m = MANAGERS[name];
  const runner = packageRunner(name);
  return (args, isLiteral, sink) => {
    const report = (i: number) => {
      const word = args[i];
      if (word === undefined || (name === "bun" && isLiteral(i) && FILE_LIKE.test(word))) return;
      if (!isLiteral(i)) return sink.unresolved(`\`${name}\` runs a script or program whose name is not literal (\`${word}\`)`);
      sink.run([word, ...args.slice(i + 1)], [true, ...range(i + 1, args.length, isLiteral)], true);
    };
    let from = 0;
    for (let hop = 0; hop < MAX_HOPS; hop++) {
      const at = commandAt(name, args, from, isLiteral, sink, m.words);
      if (at === undefined || at >= args.length) return;
      const word = args[at]!;
      if (!isLiteral(at)) return sink.unresolved(`\`${name}\` with a command word that is not literal (\`${word}\`), which may run a script or program`);
      if ((name === "bun" ? ["x"] : ["dlx", "exec"]).includes(word)) {
        const k = from;
        return runner(args.slice(k), (i) => isLiteral(k + i), { ...sink, oneWord: (i) => sink.oneWord(k + i) });
      }
      if (name === "bun" && word === "exec") return joinedScript("`bun exec`", args.slice(at + 1), range(at + 1, args.length, isLiteral), sink);
      if (word === "run" && m.run) {
        const script = commandAt(`${name} run`, args, at + 1, isLiteral, sink, m.run);
        return script === undefined ? undefined : report(script);
      }
      if (name === "yarn" && word === "workspace") {
        if (at + 1 < args.length && !sink.oneWord(at + 1)) return sink.unresolved("`yarn workspace` with a name that may expand to several words");
        from = at + 2;
      } else if (name === "yarn" && word === "workspaces" && args[at + 1] === "run") return report(at + 2);
      else if (name === "yarn" && word === "workspaces" && args[at + 1] === "foreach") {
        const next = commandAt("yarn workspaces foreach", args, at + 2, isLiteral, sink, FOREACH);
        if (next === undefined) return;
        from = next;
      } else if (name === "pnpm" && (word === "recursive" || word === "multi" || word === "m")) from = at + 1;
      // pnpm 11: `pnpm pm CMD` runs its own command CMD; before, a script or program `pm`.
      else if (name === "pnpm" && word === "pm") {
        report(at);
        from = at + 1;
      } else if (m.commands.has(word)) return;
      // yarn 2+: `yarn packages/a lint` runs `yarn lint` in packages/a (a scoped name `@a/b` is a script or program).
      else if (name === "yarn" && /[\\/]/.test(word) && !/^@[^/\\]+\/[^/\\]+$/.test(word)) from = at + 1;
      else return report(at);
    }
    sink.unresolved(`\`${name}\` with more than ${MAX_HOPS} commands in one line`);
  };
}

/** `yarn workspaces foreach`'s options (yarn 2+). */
const FOREACH: CommandWords = { values: ["--from", "-j", "--jobs", "--include", "--exclude"], unknown: "flag" };

/**
 * Where the command word stands in `args` from `from`, its options read with `spec`: `args.length`
 * when there is none; undefined, reported unresolved, when it cannot be told (an option keel cannot
 * read, `--` before a word, a value that may expand to several words). `seen` is told each option read, with the value it took.
 */
export function commandAt(
  what: string,
  args: string[],
  from: number,
  isLiteral: (i: number) => boolean,
  sink: RunnerSink,
  spec: CommandWords,
  seen?: (option: string, value: string | undefined) => void,
): number | undefined {
  for (let i = from; i < args.length; i++) {
    const word = args[i]!;
    if (!isLiteral(i) || !word.startsWith("-") || word === "-") return i;
    if (word === "--") return i + 1 < args.length ? void sink.unresolved(`\`${what} --\`: keel cannot tell which word is the command`) : args.length;
    const eq = word.indexOf("=");
    const option = eq === -1 ? word : word.slice(0, eq);
    if (eq !== -1) {
      seen?.(option, word.slice(eq + 1));
      continue;
    }
    if (spec.read) {
      const kind = spec.read(option);
      if (kind === undefined)
        return void sink.unresolved(`\`${what}\` has an option keel cannot read (\`${word}\`): whether it takes the next word depends on pnpm's version`);
      const next = args[i + 1];
      // nopt takes `-x` as the value of some types and not of others (a String's).
      if (kind === "value" && next !== undefined && next !== "-" && next.startsWith("-") && isLiteral(i + 1))
        return void sink.unresolved(`\`${what} ${word} ${next}\`: whether \`${next}\` is the value depends on the option's type`);
      if (kind === "value" && next !== undefined && !sink.oneWord(i + 1))
        return void sink.unresolved(`\`${what} ${word}\` has a value that may expand to several words`);
      seen?.(option, kind === "value" ? next : undefined);
      // nopt: `--x true|false` sets a Boolean option.
      if (kind === "value" || (kind === "flag" && isLiteral(i + 1) && (next === "true" || next === "false"))) i++;
      continue;
    }
    if (spec.values.includes(option)) {
      // yarn 1 does not take a word that is an option as a value (`--emoji --cwd d`).
      if (what.startsWith("yarn") && isLiteral(i + 1) && args[i + 1]?.startsWith("-")) {
        seen?.(option, undefined);
        continue;
      }
      if (i + 1 < args.length && !sink.oneWord(i + 1)) return void sink.unresolved(`\`${what} ${word}\` has a value that may expand to several words`);
      seen?.(option, args[i + 1]);
      i++;
      continue;
    }
    // A prefix of an option with a value (`--cw` for `--cwd`) is not read.
    if (!spec.flags?.includes(option) && (spec.unknown === "fail" || (option.startsWith("--") && spec.values.some((v) => v.startsWith(option)))))
      return void sink.unresolved(`\`${what}\` has an option keel does not know (\`${word}\`), which could take the next word`);
    seen?.(option, undefined);
  }
  return args.length;
}

/**
 * How `name` reads its command line, as `packageManager` reads it: the options before the command word (`words`), `run`'s
 * before the script (`run`, undefined for pnpm, whose `run` reads `words`' options), its own commands, and `yarn workspaces
 * foreach`'s options. The script pins (package-scripts.ts) read the same line with these, so both find the same script.
 */
export function managerSyntax(name: "yarn" | "pnpm" | "bun"): {
  words: CommandWords;
  run: CommandWords | undefined;
  commands: ReadonlySet<string>;
  foreach: CommandWords;
} {
  return { ...MANAGERS[name], foreach: FOREACH };
}

/** `corepack yarn@1 ARGS`, `corepack pnpm ARGS`, `corepack npx ARGS`: that package manager's call, the version dropped (corepack's own commands run none). */
export const corepack: Runner = (args, isLiteral, sink) => {
  const m = args[0] !== undefined && isLiteral(0) ? /^(npm|npx|pnpm|pnpx|yarn|yarnpkg)(@.*)?$/.exec(args[0]) : null;
  if (args[0] !== undefined && !isLiteral(0))
    return sink.unresolved(`\`corepack\` with a word that is not literal (\`${args[0]}\`), which may name a package manager`);
  if (m) sink.run([m[1] === "yarnpkg" ? "yarn" : m[1]!, ...args.slice(1)], [true, ...range(1, args.length, isLiteral)], true);
};
