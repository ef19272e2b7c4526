import { parallel, plain, script, sg, su, type Runner } from "./command-runners.js";
import { git } from "./git-runner.js";
import { container, kubectl, ssh } from "./remote-runners.js";
import { compose, pythonRunner, rsync } from "./tool-runners.js";
import { corepack, packageManager, packageRunner } from "./package-runners.js";
import type { OptionSpec, ReadOptions } from "./wrapper-options.js";

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
  ...Object.fromEntries(["npx", "pnpx", "bunx", "npm"].map((name) => [name, packageRunner(name)])),
  ...Object.fromEntries((["pnpm", "yarn", "bun"] as const).map((name) => [name, packageManager(name)])),
  // yarn's other name (its package installs both; Debian's package only this one).
  yarnpkg: packageManager("yarn"),
  corepack,
};
