import { sep } from "node:path";

/** Characters some file systems drop when they compare names (HFS+ ignores zero-width and bidi marks; git's `is_hfs_dotgit` skips them too). */
const IGNORED = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * The form under which a file system that folds names may treat `name` (one path segment) as the
 * same file as another: invisible characters removed, compatibility forms and case folded (NFKC,
 * then lower case: the Kelvin sign `K` is `k`), the NTFS stream suffix (`:...`) and trailing dots
 * and spaces cut. `.GIT`, `.git.`, `.g\u200cit` and `.git::$INDEX_ALLOCATION` all key to `.git`, as
 * they name `.git` itself on a case-insensitive (macOS, WSL `/mnt/c`, ext4 casefold), HFS+ or NTFS
 * volume. Used to compare a written name with a protected one, failing closed: on a volume that
 * folds nothing, the variants only cost a refusal. Never throws.
 */
export function nameKey(name: string): string {
  const folded = name.replace(IGNORED, "").normalize("NFKC").toLowerCase();
  const colon = folded.indexOf(":");
  return withoutTrailingDots(colon > 0 ? folded.slice(0, colon) : folded);
}

/**
 * `name` without its trailing dots and spaces, which Windows (NTFS, and WSL's drvfs mounts of it) strips from a
 * name. A scan from the end, not a `/[. ]+$/` regex: that one retries from every dot or space of a run not at the
 * end, quadratic in a name the model sends (`". . . a"` of 80 KB took 40 s in the permission phase).
 */
function withoutTrailingDots(name: string): string {
  let end = name.length;
  while (end > 0 && (name[end - 1] === "." || name[end - 1] === " ")) end--;
  return end === name.length ? name : name.slice(0, end);
}

/** A path every segment of which is its own key: printable ASCII without capitals, `:` or spaces, no segment ending in a dot. */
const OWN_KEY = /^(?![^]*\.(?:\/|$))[\x21-\x39\x3b-\x40\x5b-\x7e]*$/;

/** `path` with every segment replaced by its `nameKey`, to compare two paths as a folding volume would. Never throws. */
export function pathKey(path: string): string {
  if (sep === "/" && OWN_KEY.test(path)) return path;
  return path.split(sep).map(nameKey).join(sep);
}
