import { joinedScript, options, range, type Runner } from "./command-runners.js";
import { kubectlPlugin } from "./kubectl-plugins.js";
import { compose } from "./tool-runners.js";
import { hasOption, lastValue, type OptionSpec } from "./wrapper-options.js";

const SSH: OptionSpec = {
  values: ["-B", "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-P", "-p", "-Q", "-R", "-S", "-W", "-w"],
  flags: ["-1", "-2", "-4", "-6", "-A", "-a", "-C", "-f", "-G", "-g", "-K", "-k", "-M", "-N", "-n", "-q", "-s", "-T", "-t", "-V", "-v", "-X", "-x", "-Y", "-y"],
};

/** `-o` settings that run a local program or load code (`ProxyCommand`, `LocalCommand`, a PKCS#11 library, another config file). */
const SSH_LOCAL_CODE = new Set([
  "proxycommand",
  "localcommand",
  "permitlocalcommand",
  "knownhostscommand",
  "include",
  "match",
  "pkcs11provider",
  "securitykeyprovider",
  "xauthlocation",
]);

/**
 * `ssh [OPTIONS] HOST [OPTIONS] [CMD …]`: the remote shell runs the words after the host, joined
 * (a deny rule written about a command holds for it there too). Options that run local code keel
 * cannot see (`-o ProxyCommand=…`, `-o LocalCommand=…`, `-F FILE`, `-I LIB`) are unresolved, and so
 * is a remote shell reading its input (`ssh host`, `ssh host < x.sh`).
 */
const ssh: Runner = (args, isLiteral, sink) => {
  const first = options("ssh", args, isLiteral, SSH, sink);
  if (!first) return;
  const host = first.rest;
  const read = { ...first, options: [...first.options] };
  let rest = host + 1;
  // ssh reads options again after the host, unless `--` ended them.
  if (rest < args.length && !first.ended) {
    const again = options("ssh", args.slice(rest), (i) => isLiteral(rest + i), SSH, sink, rest);
    if (!again) return;
    read.options.push(...again.options);
    rest += again.rest;
  }
  let remote: string | undefined;
  for (const o of read.options) {
    if (o.name === "-F" && o.value !== "/dev/null" && o.value !== "none")
      return sink.unresolved("`ssh -F FILE`: a config file can run local commands (`ProxyCommand`, `LocalCommand`)");
    if (o.name === "-I") return sink.unresolved("`ssh -I`: loads a PKCS#11 library");
    if (o.name !== "-o") continue;
    if (!o.literal) return sink.unresolved("`ssh -o` with a setting that is not literal");
    // ssh takes quotes out of the keyword (`-o '"ProxyCommand" cmd'`, `Proxy"Command"`): a keyword that is not plain letters and digits is not read.
    const [, key = "", value = ""] = /^\s*([^\s=]*)\s*=?\s*(.*)$/s.exec(o.value!) ?? [];
    if (!/^[A-Za-z0-9]*$/.test(key)) return sink.unresolved(`\`ssh -o ${key}\`: a setting keel cannot read exactly (quoted or unusual keyword)`);
    if (SSH_LOCAL_CODE.has(key.toLowerCase())) return sink.unresolved(`\`ssh -o ${key}\` runs or loads local code keel cannot check`);
    if (key.toLowerCase() === "remotecommand") remote = value;
  }
  if (host < args.length && !sink.oneWord(host)) return sink.unresolved("`ssh` with a host word that may expand to several (options among them)");
  if (host >= args.length || hasOption(read, "-G", "-V", "-O", "-s")) return;
  if (remote !== undefined) sink.script(remote);
  if (rest < args.length) return joinedScript("`ssh`", args.slice(rest), range(rest, args.length, isLiteral), sink);
  if (remote === undefined && !hasOption(read, "-N", "-W")) sink.unresolved("`ssh HOST` without a command runs a remote shell reading its input");
};

/** Options of `docker`, `podman` and `nerdctl` before their subcommand. */
const CONTAINER_GLOBAL: OptionSpec = {
  values: [
    "--config",
    "-c",
    "--context",
    "-H",
    "--host",
    "-l",
    "--log-level",
    "--tlscacert",
    "--tlscert",
    "--tlskey",
    "--connection",
    "--url",
    "--identity",
    "--root",
    "--runroot",
    "--storage-driver",
    "--storage-opt",
    "--cgroup-manager",
    "--events-backend",
    "--tmpdir",
    "--namespace",
    "-n",
    "--address",
    "-a",
  ],
  flags: ["-D", "--debug", "--tls", "--tlsverify", "-v", "--version", "-h", "--help", "-r", "--remote", "--syslog", "--noout"],
};
const EXEC: OptionSpec = {
  values: ["-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys", "--preserve-fds", "--preserve-fd"],
  flags: ["-d", "--detach", "-i", "--interactive", "-t", "--tty", "--privileged", "-l", "--latest", "-h", "--help"],
};
const RUN: OptionSpec = {
  values: [
    ...[
      "--add-host",
      "--annotation",
      "-a",
      "--attach",
      "--blkio-weight",
      "--blkio-weight-device",
      "--cap-add",
      "--cap-drop",
      "--cgroup-parent",
      "--cgroupns",
      "--cidfile",
    ],
    ...["--cpu-period", "--cpu-quota", "--cpu-rt-period", "--cpu-rt-runtime", "-c", "--cpu-shares", "--cpus", "--cpuset-cpus", "--cpuset-mems", "--device"],
    ...[
      "--device-cgroup-rule",
      "--device-read-bps",
      "--device-read-iops",
      "--device-write-bps",
      "--device-write-iops",
      "--dns",
      "--dns-option",
      "--dns-search",
    ],
    ...[
      "--domainname",
      "--entrypoint",
      "-e",
      "--env",
      "--env-file",
      "--expose",
      "--gpus",
      "--group-add",
      "--health-cmd",
      "--health-interval",
      "--health-retries",
    ],
    ...["--health-start-period", "--health-start-interval", "--health-timeout", "-h", "--hostname", "--ip", "--ip6", "--ipc", "--isolation", "--kernel-memory"],
    ...["-l", "--label", "--label-file", "--link", "--link-local-ip", "--log-driver", "--log-opt", "--mac-address", "-m", "--memory", "--memory-reservation"],
    ...["--memory-swap", "--memory-swappiness", "--mount", "--name", "--network", "--net", "--network-alias", "--net-alias", "--oom-score-adj", "--pid"],
    ...["--pids-limit", "--platform", "-p", "--publish", "--pull", "--restart", "--runtime", "--security-opt", "--shm-size", "--stop-signal", "--stop-timeout"],
    ...["--storage-opt", "--sysctl", "--tmpfs", "--ulimit", "-u", "--user", "--userns", "--uts", "-v", "--volume", "--volume-driver", "--volumes-from"],
    ...["-w", "--workdir", "--detach-keys", "--arch", "--os", "--variant", "--secret", "--userns", "--group-entry", "--passwd-entry"],
  ],
  flags: [
    "-d",
    "--detach",
    "-i",
    "--interactive",
    "-t",
    "--tty",
    "--rm",
    "--privileged",
    "-P",
    "--publish-all",
    "--read-only",
    "--init",
    "--no-healthcheck",
    "--oom-kill-disable",
    "--sig-proxy",
    "-q",
    "--quiet",
    "--disable-content-trust",
    "--use-api-socket",
    "--replace",
    "--help",
  ],
};

/** `docker|podman|nerdctl [container] exec [OPTIONS] CONTAINER CMD…` and `… run [OPTIONS] IMAGE [CMD…]`: CMD runs in the container. */
function container(name: string): Runner {
  return (args, isLiteral, sink) => {
    const global = options(name, args, isLiteral, CONTAINER_GLOBAL, sink);
    if (!global) return;
    let i = global.rest;
    // `docker compose run|exec …`: compose's own options and subcommands.
    if (args[i] === "compose") {
      const at = i + 1;
      return compose(`${name} compose`)(args.slice(at), (k) => isLiteral(at + k), { ...sink, oneWord: (k) => sink.oneWord(at + k) });
    }
    if (args[i] === "container") i++;
    const sub = args[i];
    if (sub !== "exec" && sub !== "run") return;
    const start = i + 1;
    const lit = (k: number) => isLiteral(start + k);
    const words = args.slice(start);
    const read = options(`${name} ${sub}`, words, lit, sub === "exec" ? EXEC : RUN, sink, start);
    if (!read || hasOption(read, "--help") || (sub === "exec" && hasOption(read, "-h"))) return;
    const health = lastValue(read, "--health-cmd");
    if (health) {
      if (health.literal) sink.script(health.value!);
      else sink.unresolved(`\`${name} run --health-cmd\` with a command that is not literal`);
    }
    // podman's `exec --latest` takes no container name.
    const cmd = read.rest + (sub === "exec" && hasOption(read, "-l", "--latest") ? 0 : 1);
    if (cmd > read.rest && read.rest < words.length && !sink.oneWord(start + read.rest))
      return sink.unresolved(`\`${name} ${sub}\` with a container or image word that may expand to several`);
    const entrypoint = lastValue(read, "--entrypoint");
    const argv = [...(entrypoint ? [entrypoint.value!] : []), ...words.slice(cmd)];
    const literal = [...(entrypoint ? [entrypoint.literal] : []), ...range(cmd, words.length, lit)];
    if (argv.length) sink.run(argv, literal);
  };
}

/** Flags (no value) that may stand right before `--` in `kubectl exec … -- CMD`. */
const KUBECTL_FLAGS = new Set([
  "-i",
  "-t",
  "-it",
  "-ti",
  "-q",
  "--stdin",
  "--tty",
  "--quiet",
  "--rm",
  "--attach",
  "--leave-stdin-open",
  "--privileged",
  "--share-processes",
  "--replace",
  "--same-node",
  "--command",
]);

/** `kubectl|oc exec|run|debug … -- CMD…`: CMD runs in the pod; `kubectl foo …` runs a plugin (see `kubectlPlugin`). */
function kubectl(name: string): Runner {
  return (args, isLiteral, sink) => {
    if (name === "kubectl") kubectlPlugin(args, isLiteral, sink);
    const dd = args.indexOf("--");
    const before = dd === -1 ? args : args.slice(0, dd);
    const sub = before.find((a) => a === "exec" || a === "run" || a === "debug");
    if (sub === undefined || before.some((a) => a === "-h" || a === "--help")) return;
    // A word keel cannot read could be `--`, and move where the command starts.
    if (!before.every((_, i) => isLiteral(i))) return sink.unresolved(`\`${name} ${sub}\` with a word before \`--\` that is not literal`);
    if (dd === -1) {
      if (sub === "exec") sink.unresolved(`\`${name} exec\` without \`--\`: keel cannot tell the pod from the command`);
      return;
    }
    const prev = args[dd - 1]!;
    if (prev.startsWith("-") && !prev.includes("=") && !KUBECTL_FLAGS.has(prev))
      return sink.unresolved(`\`${name} ${sub}\`: \`${prev}\` could take \`--\` as its value`);
    if (dd + 1 < args.length) sink.run(args.slice(dd + 1), range(dd + 1, args.length, isLiteral));
  };
}

export { ssh, container, kubectl };
