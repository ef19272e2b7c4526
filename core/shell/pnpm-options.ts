/**
 * How pnpm reads an option before its command word. pnpm finds the command with nopt and the types of
 * its universal options and of `install` and `add` (parse-cli-args' exploratory parse): an option of
 * another type than Boolean takes the next word, whatever the command; a Boolean one, an option nopt
 * does not know and `--no-…` take none (but a following `true`/`false`). nopt strips every leading dash
 * (`-dir` is `--dir`, `--C` is `-C`), expands a word made of one-letter shorthands (`-rC` is `-r -C`)
 * and takes an unambiguous prefix of a name (`--fil` for `--filter`), so a word keel does not find here
 * may take the next word or not, depending on pnpm's version: it is unresolved.
 */

/**
 * Options of pnpm's exploratory parse with a value (String, Number, a list of words), in every version since 7.
 * `--dev`/`--production` (`[null, true]`: nopt takes the next word unless it is `false`) and their shorthands
 * `--development`/`--prod` are in neither list: unresolved before the command word.
 */
const VALUES = new Set(
  (
    "color dir filter filter-prod loglevel prefix reporter test-pattern changed-files-ignore-pattern workspace-packages cache-dir " +
    "child-concurrency fetch-retries fetch-retry-factor fetch-retry-maxtimeout fetch-retry-mintimeout fetch-timeout " +
    "global-bin-dir global-dir global-pnpmfile hoist-pattern https-proxy proxy noproxy lockfile-dir lockfile-directory " +
    "merge-git-branch-lockfiles-branch-pattern modules-dir network-concurrency node-linker package-import-method pnpmfile " +
    "public-hoist-pattern registry save-prefix store store-dir virtual-store-dir only C F"
  ).split(" "),
);

/** Boolean options (pnpm's and npm's), which take a following `true` or `false` and no other word. */
const FLAGS = new Set(
  (
    "auto-install-peers bail ci dangerously-allow-all-builds dedupe-peer-dependents dedupe-direct-deps disallow-workspace-cycles " +
    "enable-modules-dir enable-pre-post-scripts exclude-links-from-lockfile extend-node-path frozen-lockfile git-checks hoist " +
    "hoist-workspace-packages ignore-pnpmfile ignore-workspace ignore-workspace-cycles ignore-workspace-root-check include-workspace-root " +
    "lockfile lockfile-include-tarball-url lockfile-only merge-git-branch-lockfiles offline prefer-frozen-lockfile prefer-offline " +
    "prefer-symlinked-executables prefer-workspace-packages aggregate-output reporter-hide-prefix save-peer save-workspace-protocol " +
    "shamefully-flatten shamefully-hoist shared-workspace-lockfile shell-emulator side-effects-cache side-effects-cache-readonly " +
    "sort stream strict-peer-dependencies use-running-store-server use-store-server use-stderr verify-store-integrity workspace-root " +
    "fail-if-no-match help recursive version force global save save-dev save-prod save-optional save-exact parseable json yes " +
    "engine-strict ignore-scripts unsafe-perm optional workspace fix-lockfile " +
    // options of `pnpm -r`, run and exec that nopt does not know here (so Booleans)
    "parallel reverse report-summary if-present shell-mode " +
    // one-letter shorthands of flags (`-r`, `-w`, `-g`, `-D`, …), and `--local` (`--no-global`)
    "L r h H ? v f l p g S D P E O w i local usage porcelain"
  ).split(" "),
);

/** Shorthands that set an option (`-s` is `--reporter=silent`): they take no word, not even `true`. */
const SETS = new Set("s d dd ddd silent verbose quiet q".split(" "));

/** The one-letter shorthands of flags and settings nopt expands a word of (`-rw`) in every version (`-i`, `-l`, `-L` came later). */
const SINGLES = new Set("r s d h v f g w p S D P E O".split(" "));

/**
 * What the option `word` (a literal word starting with `-`, without `=`) does before pnpm's command:
 * takes the next word (`value`), takes a following `true`/`false` (`flag`), takes nothing (`set`), or
 * undefined when keel cannot tell (an abbreviation, an option of some versions only, shorthands
 * glued to one with a value).
 */
export function pnpmOption(word: string): "value" | "flag" | "set" | undefined {
  const name = word.replace(/^-+/, "");
  if (VALUES.has(name)) return "value";
  if (FLAGS.has(name) || /^no-./i.test(name)) return "flag";
  if (SETS.has(name)) return "set";
  // `-rw`: one-letter shorthands, each a flag or a setting, the last one taking a `true`/`false` if a flag (`-rC`, with a value, is not read).
  if (/^-[^-]/.test(word) && [...name].every((c) => SINGLES.has(c))) return FLAGS.has(name.at(-1)!) ? "flag" : "set";
  return undefined;
}
