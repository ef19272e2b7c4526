import { join } from "node:path";
import { readJsonState, updateJsonState } from "./state/json-file.js";
import type { Workspace } from "./workspace.js";

interface TrustFile {
  trusted: { root: string; at: string }[];
}

/** Path of the user-level trust records. */
export function trustFile(ws: Workspace): string {
  return join(ws.keelHome, "trust.json");
}

/**
 * True when the workspace's own manifests may start processes: `--trust`, `KEEL_TRUST=1`,
 * or a record written by `keel trust`. Never throws (an unreadable trust file means untrusted).
 */
export async function isWorkspaceTrusted(ws: Workspace, flag: boolean | undefined, env = process.env): Promise<boolean> {
  if (flag) return true;
  if (env.KEEL_TRUST === "1" || env.KEEL_TRUST === "true") return true;
  try {
    const file = await readJsonState<TrustFile>(trustFile(ws), { trusted: [] });
    return file.trusted.some((t) => t.root === ws.root);
  } catch {
    return false;
  }
}

/** Records persistent trust for the workspace root (idempotent); `revoke` removes it. */
export async function recordTrust(ws: Workspace, revoke = false): Promise<void> {
  await updateJsonState<TrustFile, void>(trustFile(ws), { trusted: [] }, (cur) => {
    const rest = (cur.trusted ?? []).filter((t) => t.root !== ws.root);
    return { value: { trusted: revoke ? rest : [...rest, { root: ws.root, at: new Date().toISOString() }] }, result: undefined };
  });
}
