import { join } from "node:path";
import { createHash } from "./lazy-crypto.js";
import { readJsonState, updateJsonState } from "./state/json-file.js";
import type { Workspace } from "./workspace.js";

/** One workspace trusted with `keel trust`: when, and what it approved (pins of the items it ran then). */
interface TrustRecord {
  root: string;
  at: string;
  /** Pins (`trustPin`) of the processes and code the workspace declared when it was trusted; absent in records written before pins. */
  approved?: string[];
}

interface TrustFile {
  trusted: TrustRecord[];
}

/**
 * Something a trusted workspace makes keel run or allow without asking: an MCP server it starts, a
 * command hook, a code plugin's module, its config's widening settings (allow rules, model endpoint, …),
 * the `allowed-tools` of a skill or prompt command (calls they approve without asking). `config` is what identifies what would run (command line, URL,
 * module content hash, …; secrets masked): changing it needs a new `keel trust`.
 */
export interface TrustItem {
  kind: "mcp server" | "hook" | "code plugin" | "config" | "skill" | "command";
  /** Shown in `keel trust` and in diagnostics, e.g. `github (.mcp.json)`. */
  name: string;
  config: unknown;
  /** Workspace files the item runs whose content `config` pins (a hook's script, a server's entry, a Makefile), and package scripts pinned by their text (`package.json#scripts.lint`), shown by `keel trust`. */
  files?: string[];
  /** Your environment variables the item receives (an MCP server's `${VAR}` references), shown by `keel trust`; not part of the pin. */
  variables?: string[];
}

/**
 * How far the workspace is trusted. `trusted`: its config may widen (allow rules, model endpoint).
 * `approved`: the pins of the TrustItems it may run — undefined when everything is approved
 * (`--trust`, `KEEL_TRUST=1`), empty for an untrusted workspace.
 */
export interface WorkspaceTrust {
  trusted: boolean;
  approved?: ReadonlySet<string>;
  /** The record was written before `keel trust` pinned what it approves: it approves nothing to run. */
  unpinned?: true;
}

/** A workspace trusted for this run only while `keel trust` reviews it: its config is read as trusted, nothing of it runs. */
export const REVIEW_TRUST: WorkspaceTrust = Object.freeze({ trusted: true, approved: new Set<string>() });

/** Path of the user-level trust records. */
export function trustFile(ws: Workspace): string {
  return join(ws.keelHome, "trust.json");
}

/** The pin of an item: a hash of its kind and configuration. */
export function trustPin(item: TrustItem): string {
  return createHash("sha256")
    .update(JSON.stringify([item.kind, item.config]))
    .digest("hex");
}

/** True when `trust` lets the workspace run `item`. */
export function trustApproves(trust: WorkspaceTrust, item: TrustItem): boolean {
  if (!trust.trusted) return false;
  return trust.approved === undefined || trust.approved.has(trustPin(item));
}

/**
 * The workspace's trust: `--trust`, `KEEL_TRUST=1` (everything approved for this invocation), or a
 * record written by `keel trust` (what it approved then). Never throws (an unreadable trust file means untrusted).
 */
export async function workspaceTrust(ws: Workspace, flag: boolean | undefined, env = process.env): Promise<WorkspaceTrust> {
  if (flag) return { trusted: true };
  if (env.KEEL_TRUST === "1" || env.KEEL_TRUST === "true") return { trusted: true };
  try {
    const file = await readJsonState<TrustFile>(trustFile(ws), { trusted: [] });
    const record = file.trusted.find((t) => t.root === ws.root);
    if (!record) return { trusted: false };
    if (!Array.isArray(record.approved)) return { trusted: true, approved: new Set(), unpinned: true };
    return { trusted: true, approved: new Set(record.approved.filter((p) => typeof p === "string")) };
  } catch {
    return { trusted: false };
  }
}

/** Records persistent trust for the workspace root, adding the pins of `items` to those it approved before; `revoke` removes the record (and every approval). */
export async function recordTrust(ws: Workspace, revoke = false, items: readonly TrustItem[] = []): Promise<void> {
  await updateJsonState<TrustFile, void>(trustFile(ws), { trusted: [] }, (cur) => {
    const previous = (cur.trusted ?? []).find((t) => t.root === ws.root)?.approved;
    const rest = (cur.trusted ?? []).filter((t) => t.root !== ws.root);
    // Approvals accumulate: `keel trust` in one folder of a monorepo sees only the manifests from
    // there up to the root, and must not forget what was approved from another (`--revoke` forgets all).
    const kept = Array.isArray(previous) ? previous.filter((p) => typeof p === "string") : [];
    const approved = [...new Set([...kept, ...items.map(trustPin)])].sort();
    return { value: { trusted: revoke ? rest : [...rest, { root: ws.root, at: new Date().toISOString(), approved }] }, result: undefined };
  });
}

/**
 * Adds `item`'s pin to the workspace's trust record (the user changed it from their own command
 * line, e.g. `keel config set`, on top of what was approved) when the record approves `before` (the
 * item just before the change; undefined: there was nothing to approve); no-op without a record. Never throws.
 */
export async function approveTrustItem(ws: Workspace, item: TrustItem, before?: TrustItem): Promise<void> {
  try {
    await updateJsonState<TrustFile, void>(trustFile(ws), { trusted: [] }, (cur) => {
      const pin = trustPin(item);
      const was = before && trustPin(before);
      const trusted = (cur.trusted ?? []).map((t) =>
        t.root === ws.root && Array.isArray(t.approved) && (!was || t.approved.includes(was)) && !t.approved.includes(pin)
          ? { ...t, approved: [...t.approved, pin].sort() }
          : t,
      );
      return { value: { trusted }, result: undefined };
    });
  } catch {
    // the next `keel trust` approves it
  }
}
