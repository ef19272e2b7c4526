import { relative } from "node:path";
import type { Host } from "../host.js";
import { realOrSelf } from "../real-path.js";
import { inside } from "./confine-path.js";
import { READ_TOOLS } from "./reachable-files.js";

/**
 * Why the text of the file at `path` (absolute) may not be put in front of the model without a tool
 * call — an `@file` import, a prompt command's `@path`, a skill's file — as the rule text: a path deny
 * rule of `read_file`, `grep` or `glob`, or the deny or ask decision a `read_file` call of that path
 * would get under `host`'s rules (nobody is asked when a file is pulled into a prompt, so an ask refuses too). Paths are
 * matched relative to `root` as written and where they really lead. Undefined when the file may be
 * read, or lies outside `root` (rules are relative to it). Never throws.
 */
export function readRefusal(host: Host, root: string, path: string): string | undefined {
  const policy = host.permissions;
  const secret = policy.hides(path);
  if (secret) return `it is inside ${secret}, which holds keel's tokens or your credentials`;
  const readFile = host.registry.resolve("read_file")?.tool;
  const rels = new Set<string>();
  for (const [base, p] of [
    [root, path],
    [realOrSelf(root), realOrSelf(path)],
  ] as const)
    if (inside(base, p)) rels.add(relative(base, p) || ".");
  for (const rel of rels) {
    const rule = policy.deniesPath(READ_TOOLS, rel);
    if (rule !== undefined) return `deny rule "${rule}"`;
    if (!readFile) continue;
    const decision = policy.decide(readFile.name, readFile, { path: rel }, root, root);
    if (decision.action !== "allow") return decision.rule !== undefined ? `${decision.action} rule "${decision.rule}"` : decision.reason;
  }
  return undefined;
}
