import { lstatSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { gitMarkerAt } from "../git-marker.js";
import { inside } from "./confine-path.js";
import { globalExcludesFile } from "./global-excludes.js";
import { IGNORE_FILE_MAX_PATTERNS, ignoreFile, regularFile, type IgnorePattern } from "./ignore-file.js";

/**
 * Most patterns one walk holds, over all the ignore files it reads (each costs about a kilobyte once compiled): a
 * repository with a 1,000-line `.ignore` in each of 4,000 folders would otherwise fill keel's heap and end the process.
 * Ignore files met past it are not applied (what they would hide is searched, as with `include_ignored`), and counted.
 */
export const IGNORE_WALK_MAX_PATTERNS = 50_000;

/**
 * Most patterns that apply in one folder, over the ignore files of it and the folders above it: every entry met there is
 * matched against each of them, synchronously (the walk cannot be cancelled meanwhile), so fifty nested folders of
 * 1,000-line `.ignore` files froze keel for 70 s on 5,000 files. A deeper file past it is not applied (counted in `unapplied`).
 */
export const IGNORE_CHAIN_MAX_PATTERNS = 4_000;

/**
 * Which kind of ignore file a frame's patterns come from, by precedence (lower wins), as ripgrep reads them: a match in
 * any `.rgignore` decides over one in any `.ignore`, which decides over git's files (`.gitignore`, `.git/info/exclude`,
 * the global excludes file); within a kind, the deepest file with a matching line decides.
 */
const enum Kind {
  Rgignore = 0,
  Ignore = 1,
  Git = 2,
}

/** The ignore files read in each folder, with their kind: `.gitignore` only inside a git repository. */
const FOLDER_FILES: readonly (readonly [string, Kind])[] = [
  [".gitignore", Kind.Git],
  [".ignore", Kind.Ignore],
  [".rgignore", Kind.Rgignore],
];

/** The patterns of one ignore file, the folder they are relative to, their kind, and the files above it. */
interface Frame {
  base: string;
  patterns: IgnorePattern[];
  kind: Kind;
  parent: Frame | undefined;
  /** Patterns of this frame and every frame below it (see IGNORE_CHAIN_MAX_PATTERNS). */
  total: number;
}

/** The rules that apply in one folder (deepest first) and whether the folder lies in a git repository. */
interface Level {
  frame: Frame | undefined;
  inRepo: boolean;
}

/**
 * The `.gitignore` rules of the git repositories a walk of `glob` or `grep` meets, as git applies them:
 * every `.gitignore` from a repository's top folder down (a deeper file's patterns win over
 * a shallower one's; within a file the last matching line wins), below them `.git/info/exclude` and
 * the user's global excludes file (`globalExcludesFile`).
 * A folder holding its own `.git` (a submodule, a nested clone) starts afresh: the git rules above it do
 * not apply inside; outside every repository none apply, and keel's own `.keel/.gitignore` never does.
 * Over them, as in ripgrep (and fd, for `.ignore`): the `.ignore` and `.rgignore` files of every folder from `root` down,
 * in and out of repositories (see Kind for which decides). Supported syntax is git's: `#` comments, `!` negation, a leading or middle `/`
 * anchors, a trailing `/` matches folders only, `*`, `?`, `[a-z]`, `[!a]` and `**`; a line matching
 * needs more is not applied. Patterns are matched in linear time (`compileLinearGlob`), so a
 * committed `*a*a*a*a*a*a*b` cannot hang a walk. Ignore files are data only: read without following a
 * link (a linked `.gitignore` is not read, as git reads none), at most IGNORE_FILE_MAX_BYTES and IGNORE_FILE_MAX_PATTERNS each,
 * IGNORE_CHAIN_MAX_PATTERNS for one folder and IGNORE_WALK_MAX_PATTERNS in all (`unapplied` counts the files past them),
 * and never the repository's git config. Files are read lazily
 * and synchronously as folders are met; holds only a cache. Never throws.
 */
export class GitIgnores {
  private readonly levels = new Map<string, Level>();
  /** Patterns this walk may still hold (see IGNORE_WALK_MAX_PATTERNS). */
  private patternsLeft = IGNORE_WALK_MAX_PATTERNS;
  private unappliedFiles = 0;

  private constructor(
    /** The boundary of the walk: no ignore file above it is read. */
    private readonly root: string,
    private readonly globalFile: string | undefined,
  ) {}

  /**
   * The rules for a walk of any folder inside `root`: those of the git repository each folder lies in (the nearest
   * folder up to `root` holding `.git`) and the `.ignore`/`.rgignore` files from `root` down. Outside a repository a
   * `.gitignore` is not applied (as in ripgrep and fd).
   */
  static forWalk(root: string, env: NodeJS.ProcessEnv): GitIgnores {
    return new GitIgnores(root, globalExcludesFile(env));
  }

  /** Ignore files met past IGNORE_WALK_MAX_PATTERNS or IGNORE_CHAIN_MAX_PATTERNS (or cut by one): their rules, or the rest of them, are not applied. */
  get unapplied(): number {
    return this.unappliedFiles;
  }

  /** Whether `abs` (a file, or a folder when `isDir`) inside the walk's root is ignored. */
  ignored(abs: string, isDir: boolean): boolean {
    const name = abs.slice(abs.lastIndexOf("/") + 1);
    // One pass, deepest first: a kind's first match decides for that kind, and a kind of higher precedence over it.
    let decided = false;
    let decidedBy: Kind | undefined;
    for (let frame = this.levelOf(dirname(abs)).frame; frame; frame = frame.parent) {
      if (decidedBy !== undefined && frame.kind >= decidedBy) continue;
      const rel = abs.slice(frame.base.length + (frame.base.endsWith("/") ? 0 : 1));
      for (let i = frame.patterns.length - 1; i >= 0; i--) {
        const p = frame.patterns[i]!;
        if (p.dirOnly && !isDir) continue;
        if (p.match(p.byName ? name : rel)) {
          decided = !p.negate;
          decidedBy = frame.kind;
          break;
        }
      }
      if (decidedBy === Kind.Rgignore) break;
    }
    return decided;
  }

  /** The rules that apply to the entries of folder `dir`, deepest first. */
  private levelOf(dir: string): Level {
    const cached = this.levels.get(dir);
    if (cached) return cached;
    const above: Level = dir === this.root || !inside(this.root, dir) ? { frame: undefined, inRepo: false } : this.levelOf(dirname(dir));
    // A repository's top starts afresh: the git rules above it do not apply inside (its own exclude and global file do).
    const git = hasGit(dir);
    const inRepo = git || above.inRepo;
    let frame = git ? this.repoBase(dir, withoutGit(above.frame)) : above.frame;
    // `.keel/.gitignore` is keel's own (`*`: its state stays out of git), not a rule for searches someone points inside `.keel`.
    if (basename(dir) !== ".keel")
      for (const [file, kind] of FOLDER_FILES) {
        if (kind === Kind.Git && !inRepo) continue;
        frame = stacked(dir, this.read(join(dir, file), frame), kind, frame);
      }
    const level = { frame, inRepo };
    this.levels.set(dir, level);
    return level;
  }

  /** The rules under every `.gitignore` of the repository whose top is `dir`: its `.git/info/exclude`, then the global file, over `under`. */
  private repoBase(dir: string, under: Frame | undefined): Frame | undefined {
    // The user's own file, which a dotfile manager may have linked: read through a link, as git does.
    const global = this.globalFile === undefined ? [] : this.read(this.globalFile, under, true);
    let frame = stacked(dir, global, Kind.Git, under);
    // Only a real `.git` folder: a `.git` file (a worktree or submodule) points elsewhere, and a linked one may lead out.
    if (isDirNoLink(join(dir, ".git")) && isDirNoLink(join(dir, ".git", "info"))) {
      frame = stacked(dir, this.read(join(dir, ".git", "info", "exclude"), frame), Kind.Git, frame);
    }
    return frame;
  }

  /**
   * ignoreFile's patterns within what the walk may still hold and what may still apply over `under` (the frames they
   * go on); a file past either is not read, only counted.
   */
  private read(path: string, under: Frame | undefined, followLink = false): IgnorePattern[] {
    const room = Math.min(this.patternsLeft, IGNORE_CHAIN_MAX_PATTERNS - (under?.total ?? 0));
    if (room <= 0) {
      if (regularFile(path, followLink)) this.unappliedFiles++;
      return [];
    }
    const patterns = ignoreFile(path, followLink, Math.min(IGNORE_FILE_MAX_PATTERNS, room + 1));
    if (patterns.length > room) {
      patterns.length = room;
      this.unappliedFiles++;
    }
    this.patternsLeft -= patterns.length;
    return patterns;
  }
}

/** `parent` with a frame of `patterns` on it (`parent` itself when there are none). */
function stacked(base: string, patterns: IgnorePattern[], kind: Kind, parent: Frame | undefined): Frame | undefined {
  return patterns.length > 0 ? { base, patterns, kind, parent, total: (parent?.total ?? 0) + patterns.length } : parent;
}

/** `frame`'s chain without its git rules (those of an enclosing repository, which stop at a nested one's top). */
function withoutGit(frame: Frame | undefined): Frame | undefined {
  if (!frame) return undefined;
  const parent = withoutGit(frame.parent);
  return frame.kind === Kind.Git ? parent : parent === frame.parent ? frame : stacked(frame.base, frame.patterns, frame.kind, parent);
}

/** The sentence a search that found nothing adds when .gitignore rules left folders or files out (`skipped` of them). */
export function ignoredHint(skipped: number): string {
  return skipped > 0
    ? ` ${skipped} folder(s) or file(s) ignored by .gitignore (or .ignore, .rgignore) were not searched; pass include_ignored: true to search them too.`
    : "";
}

/** The line a glob or grep result adds when `unapplied` ignore files were past a cap (see GitIgnores.unapplied). */
export function unappliedIgnoresNote(unapplied: number): string | undefined {
  if (unapplied === 0) return undefined;
  return `[${unapplied} ignore file(s) (.gitignore, .ignore, .rgignore) were not applied, in full or in part: keel applies at most ${IGNORE_CHAIN_MAX_PATTERNS} ignore patterns in one folder (its own and those of the folders above it) and ${IGNORE_WALK_MAX_PATTERNS} in one search; what they would hide was searched. A narrower \`path\` applies more of them.]`;
}

/** Whether `dir` is the top of a repository as git finds one (`gitMarkerAt`: not the sandbox's empty `.git`), or has a linked `.git`. */
function hasGit(dir: string): boolean {
  if (gitMarkerAt(dir) !== undefined) return true;
  try {
    return lstatSync(join(dir, ".git"), { throwIfNoEntry: false })?.isSymbolicLink() === true;
  } catch {
    return false;
  }
}

function isDirNoLink(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
