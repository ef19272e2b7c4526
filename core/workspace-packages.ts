import { existsSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { readRegularFile } from "./bounded-read.js";
import { parseJsonText } from "./json-text.js";
import { globMatcher } from "./glob-matcher.js";
import { inside } from "./tools/confine-path.js";

const require = createRequire(import.meta.url);

/** Folders below a monorepo's root searched for its packages, and packages named at most. */
const MAX_PACKAGE_DEPTH = 5;
const MAX_PACKAGES = 500;

/**
 * The package folders (absolute) of the monorepo whose root is `dir`: the folders below it holding a
 * package.json that match a pattern of its package.json `workspaces` (an array, or `{packages}`) or
 * of its `pnpm-workspace.yaml` `packages`, `MAX_PACKAGE_DEPTH` deep (`node_modules` and `.git` left out).
 * Each pattern is searched from its literal folder (`packages/*` lists `packages/` only, not the whole
 * repository), as deep as its segments go (`**` to `MAX_PACKAGE_DEPTH`). An exclusion (`!pkg`) is
 * ignored and a pattern keel cannot match matches every folder: a package too many only pins a script
 * too many. Never throws (an unreadable list is no package).
 */
export function workspacePackageDirs(dir: string): string[] {
  const patterns = workspacePatterns(dir).map((p) => p.replace(/^\.\//, "").replace(/\/+$/, ""));
  if (!patterns.length) return [];
  const matchers = patterns.map((p) => globMatcher(p, {}, "all"));
  const { fdir } = require("fdir") as typeof import("fdir");
  const found = new Set<string>();
  for (const pattern of patterns) {
    const segments = pattern.split("/");
    const literal = segments.findIndex((s) => /[*?[\]{}!()+@]/.test(s));
    const base = (literal === -1 ? segments : segments.slice(0, literal)).join("/");
    // `**`, or an extglob keel may not match (it then matches every folder), goes as deep as keel looks.
    const rest = segments.slice(literal);
    const depth = literal === -1 ? 0 : rest.some((s) => s === "**" || /[!()+@]/.test(s)) ? MAX_PACKAGE_DEPTH + 1 - literal : rest.length;
    if (base.split("/").some((s) => s === ".." || s === "node_modules" || s === ".git")) continue;
    if (literal === -1) {
      found.add(base);
      continue;
    }
    // A pattern's folder that is a link leading out of the repository is not searched (the whole-tree walk never followed links).
    if (depth < 1 || !insideReally(dir, join(dir, base))) continue;
    const below = new fdir()
      .onlyDirs()
      .withRelativePaths()
      .withMaxDepth(depth - 1)
      .exclude((name) => name === "node_modules" || name === ".git")
      .crawl(join(dir, base))
      .sync();
    for (const d of below) found.add(join(base, d).replace(/[/\\]+$/, ""));
  }
  const out: string[] = [];
  for (const rel of [...found].sort()) {
    if (rel === "" || rel === "." || !matchers.some((m) => m(rel)) || !existsSync(join(dir, rel, "package.json"))) continue;
    out.push(join(dir, rel));
    if (out.length >= MAX_PACKAGES) break;
  }
  return out;
}

/** Whether `path` exists and really (links resolved) lies in `dir`. */
function insideReally(dir: string, path: string): boolean {
  try {
    return inside(realpathSync(dir), realpathSync(path));
  } catch {
    return false;
  }
}

/** The package patterns (exclusions left out) `dir` declares as a monorepo's root: none when it is not one. Never throws. */
export function workspacePatterns(dir: string): string[] {
  return [...packageJsonWorkspaces(dir), ...pnpmWorkspaces(dir)].filter((p) => !p.startsWith("!"));
}

/** The `workspaces` patterns of `dir`'s package.json. */
function packageJsonWorkspaces(dir: string): string[] {
  try {
    const value = parseJsonText(readRegularFile(join(dir, "package.json"), 16 * 1024 * 1024)) as { workspaces?: unknown };
    const list = Array.isArray(value.workspaces) ? value.workspaces : (value.workspaces as { packages?: unknown } | undefined)?.packages;
    return Array.isArray(list) ? list.filter((p): p is string => typeof p === "string") : [];
  } catch {
    return [];
  }
}

/** The `packages` patterns of `dir`'s pnpm-workspace.yaml. */
function pnpmWorkspaces(dir: string): string[] {
  try {
    const value = (require("yaml") as typeof import("yaml")).parse(readRegularFile(join(dir, "pnpm-workspace.yaml"), 1024 * 1024)) as { packages?: unknown };
    return Array.isArray(value?.packages) ? value.packages.filter((p): p is string => typeof p === "string") : [];
  } catch {
    return [];
  }
}
