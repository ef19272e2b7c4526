import { existsSync, lstatSync, mkdirSync } from "node:fs";
import { readStateTextSync } from "./json-file.js";
import { join } from "node:path";
import { assertOwnPath, PRIVATE_DIR_MODE, writeNewOwnFileSync } from "./own-path.js";

/**
 * Runtime state, sessions, artifacts and worktrees stay out of git; the files users write
 * themselves under `.keel/` (workflows, declared teams) stay committable. The .gitignore itself is
 * ignored too, so a repository where keel only ran shows nothing new in `git status`.
 */
export const KEEL_GITIGNORE = [
  "# Written by keel: runtime state, sessions, artifacts and worktrees stay out of git.",
  "*",
  "# ...but what you author here is shared with your repository:",
  "!workflows/",
  "!workflows/*.json",
  "!teams.json",
  "",
].join("\n");

/**
 * Creates `<stateDir>` (and its `.gitignore`) plus `sub` if missing; returns the joined path. Sync
 * and idempotent. Throws StateError when `.keel` or a folder of `sub` is a symlink (see
 * `assertOwnPath`): keel never creates or writes its state through a link planted in the repository.
 */
export function ensureStateDir(stateDir: string, ...sub: string[]): string {
  const dir = join(stateDir, ...sub);
  assertOwnPath(dir, true);
  const gitignore = join(stateDir, ".gitignore");
  if (!existsSync(gitignore)) {
    mkdirSync(stateDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    // O_CREAT|O_EXCL: never follows a link planted at .gitignore (a dangling one counts as existing). A write
    // that fails (a full disk) removes the file it made: keel never rewrites an existing .gitignore, so an empty
    // one left here would let sessions, events and artifacts into git for good.
    writeNewOwnFileSync(gitignore, KEEL_GITIGNORE);
  }
  if (sub.length > 0) mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  return dir;
}

/** Largest `.keel/.gitignore` keel reads to check it (keel's own is a few lines). */
const MAX_GITIGNORE_BYTES = 64 * 1024;

/** The negations keel's own `.gitignore` makes (what you author under `.keel/` stays committable). */
const KEEL_NEGATIONS = new Set(["!workflows/", "!workflows/*.json", "!teams.json"]);

/**
 * Why `<stateDir>/.gitignore` may let keel's state into git (undefined when it keeps it out, or when
 * there is none: keel writes its own on first use). keel never rewrites an existing one (you may
 * have edited it), so a repository can commit one that ignores nothing: your sessions, events and
 * artifacts would then show in `git status` and go out with a `git add .`. It keeps them out when it
 * has a line `*` (or `/*`) and negates nothing but keel's own `!workflows/`, `!workflows/*.json` and
 * `!teams.json` (git never looks inside an ignored folder, so nothing below can bring them back).
 * Never throws.
 */
export function stateGitignoreProblem(stateDir: string): string | undefined {
  const file = join(stateDir, ".gitignore");
  let text: string | undefined;
  try {
    const stat = lstatSync(file, { throwIfNoEntry: false });
    if (stat === undefined) return undefined;
    // git reads no .gitignore through a link (2.32+): one there ignores nothing; a huge one is no keel file.
    if (!stat.isFile() || stat.size > MAX_GITIGNORE_BYTES) throw new Error("not a small regular file");
    text = readStateTextSync(file);
  } catch {
    return `.keel/.gitignore is not a small regular file keel can read (a link, a folder, over 64 KiB), so keel cannot tell whether it keeps sessions, events and artifacts out of git`;
  }
  if (text === undefined) return undefined;
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  const ignoresAll = lines.includes("*") || lines.includes("/*");
  const foreign = lines.filter((l) => l.startsWith("!") && !KEEL_NEGATIONS.has(l));
  if (ignoresAll && foreign.length === 0) return undefined;
  return `.keel/.gitignore does not keep keel's state out of git (${ignoresAll ? `it brings back ${foreign.slice(0, 3).join(" ")}` : "it has no line `*`"}): your sessions, events and artifacts may show in \`git status\` and be committed with \`git add .\`. keel does not rewrite it; make it ignore everything (a line \`*\`, as keel writes it: delete it and keel writes its own)`;
}
