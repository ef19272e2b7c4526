/**
 * Exact option reading for wrappers that run a command they are given (`su -c`, `ssh HOST CMD`,
 * `docker exec`, …): every option the wrapper knows is listed, so an option keel does not know
 * (which could take the next word as its value, or run something itself) is reported instead of
 * guessed at, and the caller fails closed.
 */

/** The options of one wrapper, as its option parser reads them. */
export interface OptionSpec {
  /** Options taking a value: the rest of the word (`-uroot`, `--user=root`) or the next word. */
  values: readonly string[];
  /** Options taking no value. */
  flags: readonly string[];
  /** Options whose value, if any, is written in the same word (`nsenter -m/proc/1/ns/mnt`, `--mount=…`). */
  optional?: readonly string[];
  /** getopt's permutation: operands and options may mix (`su root -c 'rm x'`); otherwise options end at the first operand. */
  permute?: boolean;
}

/** One option as read: its name as listed (`--command` for `--comm`), its value and whether that value is literal. */
export interface ReadOption {
  name: string;
  value?: string;
  literal: boolean;
}

/** What `readOptions` found: the options in order, the operands (indices into the words), and where options stopped. */
export interface ReadOptions {
  options: ReadOption[];
  /** Indices of the operands met before `rest` (with `permute`, all of them; otherwise none). */
  operands: number[];
  /** Index of the first word after the options: the first operand (no `permute`), or after `--`, or the end. */
  rest: number;
  /** True when `--` ended the options. */
  ended: boolean;
}

/**
 * Reads `words` as the wrapper's getopt would (clusters `-it`, attached values `-uroot`, long options
 * with `=` or the next word, unambiguous abbreviations `--comm`), or returns why it cannot be read
 * exactly: an option keel does not know, or one that is not literal.
 */
export function readOptions(
  wrapper: string,
  words: readonly string[],
  isLiteral: (i: number) => boolean,
  spec: OptionSpec,
  oneWord: (i: number) => boolean = isLiteral,
): ReadOptions | string {
  // An unquoted `$X` (or a glob) may be several words, or none: every word after it would move.
  const split = (i: number) => `\`${wrapper}\` has a word that may expand to several (\`${words[i]}\`): keel cannot tell options from the command`;
  const options: ReadOption[] = [];
  const operands: number[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") return { options, operands, rest: i + 1, ended: true };
    if (!word.startsWith("-") || word === "-") {
      // `su root -c ls "$F"`, `npm "$X" exec …`: a word that is not literal may expand to an option (`-crm x`, `-y`).
      if (!isLiteral(i) && mayBeOption(word))
        return !oneWord(i) ? split(i) : `\`${wrapper}\` has a word that is not literal (\`${word}\`), which could be an option`;
      if (!spec.permute) return { options, operands, rest: i, ended: false };
      if (!oneWord(i)) return split(i);
      operands.push(i);
      continue;
    }
    if (!isLiteral(i)) return `\`${wrapper}\` has an option that is not literal (\`${word}\`)`;
    const unknown = `\`${wrapper}\` has an option keel does not know (\`${word}\`), which could take the next word or run something itself`;
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const written = eq === -1 ? word : word.slice(0, eq);
      const found = longOption(written, spec);
      if (found === undefined) return unknown;
      const [name, kind] = found;
      if (kind === "value" && eq === -1) {
        if (i + 1 >= words.length) return `\`${wrapper} ${word}\` lacks its value`;
        if (!oneWord(i + 1)) return split(i + 1);
        options.push({ name, value: words[i + 1]!, literal: isLiteral(i + 1) });
        i++;
      } else options.push({ name, ...(eq === -1 ? {} : { value: word.slice(eq + 1) }), literal: true });
      continue;
    }
    for (let k = 1; k < word.length; k++) {
      const name = `-${word[k]!}`;
      if (spec.flags.includes(name)) {
        options.push({ name, literal: true });
        continue;
      }
      if (spec.optional?.includes(name)) {
        options.push({ name, ...(k + 1 < word.length ? { value: word.slice(k + 1) } : {}), literal: true });
        break;
      }
      if (!spec.values.includes(name)) return unknown;
      if (k + 1 < word.length) options.push({ name, value: word.slice(k + 1), literal: true });
      else if (i + 1 < words.length) {
        if (!oneWord(i + 1)) return split(i + 1);
        options.push({ name, value: words[i + 1]!, literal: isLiteral(i + 1) });
        i++;
      } else return `\`${wrapper} ${word}\` lacks its value`;
      break;
    }
  }
  return { options, operands, rest: words.length, ended: false };
}

/**
 * Whether a word that is not literal could expand to one starting with `-`: it starts (after its
 * quotes) with `-` (`"-k$K"`: an option with its value), an expansion, a pattern or an escape, not
 * with another literal character (`"host-$N"` cannot).
 */
export function mayBeOption(word: string): boolean {
  return /^["']*[-$`{*?[\\]/.test(word);
}

/** The long option `written` names (exactly, or as the only option it abbreviates) and its kind. */
function longOption(written: string, spec: OptionSpec): [string, "value" | "flag" | "optional"] | undefined {
  const kinds: [readonly string[], "value" | "flag" | "optional"][] = [
    [spec.values, "value"],
    [spec.flags, "flag"],
    [spec.optional ?? [], "optional"],
  ];
  for (const [list, kind] of kinds) if (list.includes(written)) return [written, kind];
  const matches = kinds.flatMap(([list, kind]) =>
    list.filter((o) => o.startsWith("--") && o.startsWith(written)).map((o) => [o, kind] as [string, typeof kind]),
  );
  // getopt_long accepts an unambiguous prefix; an ambiguous one is an error (nothing runs), read as unknown here.
  return written.length > 2 && matches.length === 1 ? matches[0] : undefined;
}

/** The last value given for any of `names` (a later `-c` replaces an earlier one), with whether it is literal. */
export function lastValue(read: ReadOptions, ...names: string[]): ReadOption | undefined {
  return read.options.findLast((o) => names.includes(o.name) && o.value !== undefined);
}

/** Whether any of `names` was given. */
export function hasOption(read: ReadOptions, ...names: string[]): boolean {
  return read.options.some((o) => names.includes(o.name));
}
