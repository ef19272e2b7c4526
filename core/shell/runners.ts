import { joinedScript, options, parallel, plain, range, script, sg, su, type Runner, type RunnerSink } from "./command-runners.js";
import { git } from "./git-runner.js";
import { container, kubectl, ssh } from "./remote-runners.js";
import { compose, pythonRunner, rsync } from "./tool-runners.js";
import { lastValue, readOptions, type OptionSpec, type ReadOptions } from "./wrapper-options.js";

const HELP = ["-h", "--help", "-V", "--version"];

/** systemd properties that run commands (`ExecStartPre=…`) or make a bash run a file (`Environment=BASH_ENV=…`). */
const RUNS_CODE = /^\s*(Exec|.*BASH_ENV|.*BASH_FUNC)/i;

/** `systemd-run`: a property such as `-p ExecStartPre=…` runs a command keel cannot check. */
function systemdProperties(read: ReadOptions): string | undefined {
  const property = read.options.find((o) => /^(-p|--property|--timer-property|--path-property|--socket-property|-E|--setenv)$/.test(o.name));
  if (!property) return undefined;
  const bad = read.options.find(
    (o) => /^(-p|--property|--timer-property|--path-property|--socket-property|-E|--setenv)$/.test(o.name) && (!o.literal || RUNS_CODE.test(o.value!)),
  );
  return bad ? `\`systemd-run ${bad.name} ${bad.value}\` can run a command keel cannot check` : undefined;
}

const SYSTEMD_RUN: OptionSpec = {
  values: [
    ...["-H", "--host", "-M", "--machine", "-E", "--setenv", "-p", "--property", "-u", "--unit", "--description", "--slice", "--uid", "--gid", "--nice"],
    ...["--working-directory", "--on-active", "--on-boot", "--on-startup", "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--timer-property"],
    ...["--path-property", "--socket-property", "--service-type", "--json", "--capsule", "-C"],
  ],
  flags: [
    ...["--user", "--system", "--scope", "-r", "--remain-after-exit", "--send-sighup", "-t", "--pty", "-P", "--pipe", "-q", "--quiet", "-G", "--collect"],
    ...["--wait", "-d", "--same-dir", "-S", "--shell", "--no-block", "--no-ask-password", "--on-clock-change", "--on-timezone-change", "--slice-inherit"],
    ...["--pty-late", "--ignore-failure", "--background", ...HELP],
  ],
  optional: ["--expand-environment"],
};

const SHELL_NOTE = "runs a shell reading its input";

/** Programs that run a command they are given, read exactly (see `wrapper-options.ts`): an option keel does not know is unresolved. */
const PLAIN: Record<string, (name: string) => Runner> = {
  nsenter: plain(
    {
      values: ["-t", "--target", "-S", "--setuid", "-G", "--setgid", "-W", "--wdns"],
      flags: [
        "-a",
        "--all",
        "-e",
        "--env",
        "-F",
        "--no-fork",
        "-Z",
        "--follow-context",
        "-c",
        "--join-cgroup",
        "--preserve-credentials",
        "--keep-caps",
        "--user-parent",
        ...HELP,
      ],
      optional: [
        "-m",
        "--mount",
        "-u",
        "--uts",
        "-i",
        "--ipc",
        "-n",
        "--net",
        "-p",
        "--pid",
        "-C",
        "--cgroup",
        "-U",
        "--user",
        "-T",
        "--time",
        "-r",
        "--root",
        "-w",
        "--wd",
      ],
    },
    SHELL_NOTE,
  ),
  setpriv: plain({
    values: [
      ...[
        "--ambient-caps",
        "--bounding-set",
        "--groups",
        "--inh-caps",
        "--securebits",
        "--pdeathsig",
        "--regid",
        "--reuid",
        "--rgid",
        "--ruid",
        "--egid",
        "--euid",
      ],
      ...["--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule", "--ptracer"],
    ],
    flags: ["-d", "--dump", "--clear-groups", "--init-groups", "--keep-groups", "--nnp", "--no-new-privs", "--reset-env", ...HELP],
  }),
  "flatpak-spawn": plain({
    values: [
      ...[
        "--env",
        "--unset-env",
        "--forward-fd",
        "--directory",
        "--sandbox-expose",
        "--sandbox-expose-ro",
        "--sandbox-expose-path",
        "--sandbox-expose-path-ro",
      ],
      ...["--sandbox-flag", "--app-path", "--usr-path"],
    ],
    flags: [
      "--host",
      "--clear-env",
      "--watch-bus",
      "--expose-pids",
      "--share-pids",
      "--no-network",
      "--sandbox",
      "--latest-version",
      "-v",
      "--verbose",
      "-h",
      "--help",
    ],
  }),
  // `--dbus-daemon=PROGRAM` and `--config-file=FILE` (which can start services) are not listed: unresolved.
  "dbus-run-session": plain({ values: [], flags: ["-h", "--help", "--version"] }),
  pkexec: plain({ values: ["--user"], flags: ["--keep-cwd", "--disable-internal-agent", "--help", "--version"] }, SHELL_NOTE),
  unbuffer: plain({ values: [], flags: ["-p"] }),
  catchsegv: plain({ values: [], flags: [] }),
  "systemd-run": plain(SYSTEMD_RUN, SHELL_NOTE, systemdProperties),
};

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
function packageRunner(name: string): Runner {
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

/** Every runner by program name. */
export const RUNNERS: Record<string, Runner> = {
  ...Object.fromEntries(Object.entries(PLAIN).map(([name, make]) => [name, make(name)])),
  su: su("su"),
  runuser: su("runuser"),
  script,
  parallel,
  sg,
  ssh,
  git,
  rsync,
  ...Object.fromEntries(["docker-compose", "podman-compose"].map((name) => [name, compose(name)])),
  ...Object.fromEntries(["uv", "uvx", "pipx"].map((name) => [name, pythonRunner(name)])),
  ...Object.fromEntries(["docker", "podman", "nerdctl"].map((name) => [name, container(name)])),
  ...Object.fromEntries(["kubectl", "oc"].map((name) => [name, kubectl(name)])),
  ...Object.fromEntries(["npx", "pnpx", "bunx", "npm", "pnpm", "yarn", "bun"].map((name) => [name, packageRunner(name)])),
};
