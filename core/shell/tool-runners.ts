import { joinedScript, options, range, type Runner, type RunnerSink } from "./command-runners.js";
import { SSH_ARGUMENTS } from "./git-config.js";
import { hasOption, lastValue, type OptionSpec } from "./wrapper-options.js";

/** Short options of rsync that take a value (the rest of the word, or the next word). */
const RSYNC_SHORT_VALUES = new Set(["e", "B", "f", "T", "M", "@"]);

/**
 * `rsync -e CMD` / `--rsh=CMD` runs CMD locally with the host and rsync's command appended (rsync
 * splits it into words itself, much as sh would); `--rsync-path=CMD` is run by the remote shell. Both
 * are scripts. rsync reads options anywhere before `--`, so a word that is not literal there could be
 * `--rsh=…`: a part keel cannot check.
 */
export const rsync: Runner = (args, isLiteral, sink) => {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === "--") return;
    if (!isLiteral(i)) return sink.unresolved(`\`rsync\` has a word that is not literal (\`${word}\`), which could be an option such as \`--rsh=CMD\``);
    const next = () => (i + 1 < args.length ? (isLiteral(i + 1) ? args[++i]! : null) : undefined);
    const take = (what: string, value: string | null | undefined) => {
      if (value === null) return sink.unresolved(`\`rsync ${what}\` with a command that is not literal`);
      if (value !== undefined) sink.script(value + SSH_ARGUMENTS);
    };
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const name = eq === -1 ? word : word.slice(0, eq);
      // popt takes no abbreviations, but reading one as the option only adds a script to check.
      const rsh = name.length > 4 && "--rsh".startsWith(name);
      const path = name.length > 4 && "--rsync-path".startsWith(name);
      if (rsh || path) take(rsh ? "--rsh" : "--rsync-path", eq === -1 ? next() : word.slice(eq + 1));
      continue;
    }
    if (!word.startsWith("-")) continue;
    for (let k = 1; k < word.length; k++) {
      if (!RSYNC_SHORT_VALUES.has(word[k]!)) continue;
      const value = k + 1 < word.length ? word.slice(k + 1) : next();
      if (word[k] === "e") take("-e", value);
      break;
    }
  }
};

/** Options of `docker compose` (and `docker-compose`, `podman compose`) before its subcommand. */
const COMPOSE: OptionSpec = {
  values: ["-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory", "--ansi", "--progress", "--parallel", "-H", "--host"],
  flags: ["--compatibility", "--dry-run", "--all-resources", "--verbose", "--no-ansi", "-h", "--help", "-v", "--version"],
};
const COMPOSE_EXEC: OptionSpec = {
  values: ["-e", "--env", "-u", "--user", "-w", "--workdir", "--index"],
  flags: ["-d", "--detach", "-T", "--no-TTY", "--no-tty", "--privileged", "-i", "--interactive", "-t", "--tty", "--dry-run", "-h", "--help"],
};
const COMPOSE_RUN: OptionSpec = {
  values: [
    ...["-e", "--env", "--env-from-file", "--entrypoint", "-l", "--label", "--name", "-p", "--publish", "-u", "--user", "-v", "--volume"],
    ...["-w", "--workdir", "--cap-add", "--cap-drop", "--pull"],
  ],
  flags: [
    ...["-d", "--detach", "--build", "--no-deps", "--rm", "--service-ports", "--use-aliases", "-T", "--no-TTY", "--no-tty", "-i", "--interactive"],
    ...["-t", "--tty", "--quiet-pull", "--remove-orphans", "-q", "--quiet", "--quiet-build", "--dry-run", "-h", "--help"],
  ],
};

/**
 * `docker compose|docker-compose|podman compose [OPTIONS] run|exec [OPTIONS] SERVICE [CMD…]`: CMD runs
 * in the service's container (as with `docker exec`); `run --entrypoint 'CMD ARGS'` is split by compose
 * into words, read here as a script with the command after it. Without CMD, the service's own
 * command runs (from the compose file, as `docker run IMAGE` runs the image's).
 */
export function compose(name: string): Runner {
  return (args, isLiteral, sink) => {
    const global = options(name, args, isLiteral, COMPOSE, sink);
    if (!global || hasOption(global, "-h", "--help", "-v", "--version")) return;
    const sub = args[global.rest];
    if (sub !== "run" && sub !== "exec") return;
    const start = global.rest + 1;
    const lit = (k: number) => isLiteral(start + k);
    const words = args.slice(start);
    const read = options(`${name} ${sub}`, words, lit, sub === "exec" ? COMPOSE_EXEC : COMPOSE_RUN, sink, start);
    if (!read || hasOption(read, "-h", "--help")) return;
    if (read.rest < words.length && !sink.oneWord(start + read.rest))
      return sink.unresolved(`\`${name} ${sub}\` with a service word that may expand to several`);
    const cmd = read.rest + 1;
    const entrypoint = lastValue(read, "--entrypoint");
    if (entrypoint)
      return joinedScript(
        `\`${name} run --entrypoint\``,
        [entrypoint.value!, ...words.slice(cmd)],
        [entrypoint.literal, ...range(cmd, words.length, lit)],
        sink,
      );
    if (cmd < words.length) sink.run(words.slice(cmd), range(cmd, words.length, lit));
  };
}

/** `uv` options that take a value, read before `run`/`tool run` and after them (uv takes its options anywhere before the command). */
const UV_VALUES = [
  ...["--directory", "--project", "--config-file", "--cache-dir", "--color", "-p", "--python", "--with", "--with-editable", "--with-requirements"],
  ...["--from", "--index", "--default-index", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--index-strategy", "--keyring-provider"],
  ...["--resolution", "--prerelease", "--exclude-newer", "--link-mode", "--extra", "--group", "--only-group", "--no-group", "--package", "--env-file"],
  ...["--allow-insecure-host", "--python-platform", "-C", "--config-setting", "--no-build-package", "--no-binary-package", "--refresh-package"],
  ...["--upgrade-package", "-P", "--reinstall-package", "--constraints", "-c", "--overrides", "--build-constraints", "-b"],
];
const UV_FLAGS = [
  ...["-q", "--quiet", "-v", "--verbose", "--no-cache", "-n", "--offline", "--no-progress", "--native-tls", "--no-config", "--no-python-downloads"],
  ...["--managed-python", "--no-managed-python", "--isolated", "--no-project", "--frozen", "--locked", "--no-sync", "--all-extras", "--no-dev"],
  ...["--dev", "--only-dev", "--all-groups", "--no-default-groups", "--all-packages", "--active", "--no-env-file", "--exact", "--inexact"],
  ...["-U", "--upgrade", "--reinstall", "--refresh", "--no-build", "--no-binary", "--no-build-isolation", "--compile-bytecode", "--no-editable"],
  ...["-s", "--script", "--gui-script", "--preview", "--no-preview", "--show-resolution", "-h", "--help", "-V", "--version"],
];
const UV: OptionSpec = { values: UV_VALUES, flags: [...UV_FLAGS, "-m", "--module"] };
const PIPX: OptionSpec = {
  values: ["--spec", "--python", "--pip-args", "--index-url", "-i", "--backend", "--fetch-python"],
  flags: ["--no-cache", "--system-site-packages", "--path", "--pypackages", "-v", "--verbose", "-q", "--quiet", "-h", "--help", "--version"],
};

/** A package spec's program: `ruff@0.5` and `ruff==0.5` run `ruff`, `black[jupyter]` runs `black`. */
const programOf = (spec: string): string => /^([A-Za-z0-9._-]+)/.exec(spec)?.[1] ?? spec;

/**
 * `uvx PKG ARGS`, `uv tool run PKG ARGS`, `pipx run PKG ARGS`: the package's program (version and
 * extras dropped; with `--from`/`--spec`, the first word names the program itself), as `npx` runs
 * one; `uv run CMD ARGS` runs CMD in the project's environment (`-m MOD`: `python -m MOD`). The same
 * call under another name to allow rules, as for `npx`.
 */
export function pythonRunner(name: string): Runner {
  return (all, allLiteral, outer) => {
    let at = 0;
    if (name === "uv") {
      const global = options("uv", all, allLiteral, UV, outer);
      if (!global) return;
      at = global.rest;
      if (all[at] === "tool" && all[at + 1] === "run") at += 2;
      else if (all[at] === "run") at += 1;
      else return;
    } else if (name === "pipx") {
      const global = options("pipx", all, allLiteral, PIPX, outer);
      if (!global || all[global.rest] !== "run") return;
      at = global.rest + 1;
    }
    const args = all.slice(at);
    const isLiteral = (i: number) => allLiteral(at + i);
    const sink: RunnerSink = { ...outer, oneWord: (i) => outer.oneWord(at + i) };
    const runOnly = name === "uv" && all[at - 1] === "run" && all[at - 2] !== "tool";
    const read = options(name === "uv" ? `uv ${all.slice(0, at).slice(-2).join(" ")}` : name, args, isLiteral, name === "pipx" ? PIPX : UV, sink);
    if (!read || hasOption(read, "-h", "--help", "-V", "--version")) return;
    const words = args.slice(read.rest);
    const literal = range(read.rest, args.length, isLiteral);
    if (runOnly && hasOption(read, "-m", "--module")) return sink.run(["python", "-m", ...words], [true, true, ...literal], true);
    if (!words.length) return;
    const named = runOnly || lastValue(read, "--from", "--spec") ? words[0]! : programOf(words[0]!);
    sink.run([named, ...words.slice(1)], literal, true);
  };
}
