/**
 * The files holding the program of a tool that is not an interpreter of a script argument: the
 * makefiles `make` reads (see `makefileWords`), the program files of `awk -f prog.awk` and `sed -f
 * script.sed` (an awk `system()` or a GNU sed `e` command runs shell commands); undefined for other
 * programs. `name` is the program's last path component.
 */
export function programFileWords(name: string, args: readonly string[]): string[] | undefined {
  if (/^g?make$/.test(name)) return makefileWords(args);
  const options = Object.hasOwn(PROGRAM_FILE_OPTIONS, name) ? PROGRAM_FILE_OPTIONS[name] : undefined;
  return options && optionValues(args, options);
}

/** Tools whose program is inline text unless an option names a file of it (`awk -f prog.awk`, `sed -f script.sed`). */
const PROGRAM_FILE_OPTIONS: Record<string, ReadonlySet<string>> = {
  ...Object.fromEntries(["awk", "gawk", "mawk", "nawk"].map((s) => [s, new Set(["-f", "--file", "-E", "--exec", "-i", "--include"])])),
  sed: new Set(["-f", "--file"]),
  gsed: new Set(["-f", "--file"]),
};

/** The values `args` give options `names` (`-f x`, `-fx`, `--file=x`). */
function optionValues(args: readonly string[], names: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") break;
    const eq = a.indexOf("=");
    if (names.has(a) && args[i + 1] !== undefined) out.push(args[++i]!);
    else if (eq !== -1 && a.startsWith("--") && names.has(a.slice(0, eq))) out.push(a.slice(eq + 1));
    else if (/^-[a-zA-Z]/.test(a) && !a.startsWith("--") && a.length > 2 && names.has(a.slice(0, 2))) out.push(a.slice(2));
  }
  return out;
}

/** Options of make whose value is the next word (unless attached: `-Cdir`, `--file=x`). */
const MAKE_VALUE = new Set([
  "-C",
  "--directory",
  "-f",
  "--file",
  "--makefile",
  "-I",
  "--include-dir",
  "-o",
  "--old-file",
  "-W",
  "--what-if",
  "-l",
  "--load-average",
]);

/**
 * The makefiles `make` reads: those given with `-f` (in the `-C` folder), else `GNUmakefile`,
 * `makefile` and `Makefile` there. Pinned whole: a recipe is arbitrary code, and a make variable or
 * target can change any of them.
 */
function makefileWords(args: readonly string[]): string[] {
  const dirs: string[] = [];
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const attached = /^(-[Cf])(.+)$/.exec(a) ?? /^(--directory|--file|--makefile)=(.*)$/.exec(a);
    const [option, value] = attached ? [attached[1]!, attached[2]] : MAKE_VALUE.has(a) ? [a, args[++i]] : [a, undefined];
    if (value === undefined) continue;
    if (option === "-C" || option === "--directory") dirs.push(value);
    else if (option === "-f" || option === "--file" || option === "--makefile") files.push(value);
  }
  const dir = dirs.reduce((d, next) => (next.startsWith("/") || d === "" ? next : `${d}/${next}`), "");
  return (files.length ? files : ["GNUmakefile", "makefile", "Makefile"]).map((f) => (dir === "" || f.startsWith("/") ? f : `${dir}/${f}`));
}
