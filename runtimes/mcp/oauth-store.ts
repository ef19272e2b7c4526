import { createHash } from "node:crypto";
import { mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { type LockHeld, MCP_OAUTH_DIR, StateError, errorMessage, storageMessage, urlForDisplay, withFileLock, writeFileAtomic } from "../../core/index.js";

/** What keel keeps for one server URL: tokens, the client registration and the discovery result. */
export interface OAuthRecord {
  serverUrl: string;
  tokens?: OAuthTokens;
  client?: OAuthClientInformationMixed;
  discovery?: OAuthDiscoveryState;
  /** Scopes the next login must ask for (what the tokens had plus what a tool's 403 `insufficient_scope` asked for); cleared by a login. */
  requiredScope?: string;
  savedAt?: string;
}

/** The space-separated union of scope strings, in first-seen order (undefined when empty). */
export function scopeUnion(...scopes: (string | undefined)[]): string | undefined {
  const all = [...new Set(scopes.flatMap((s) => s?.split(" ").filter(Boolean) ?? []))];
  return all.length ? all.join(" ") : undefined;
}

/** The scopes a record's next login must add to what its tokens were granted (undefined when none are missing). */
export function pendingScope(record: OAuthRecord): string | undefined {
  if (!record.requiredScope) return undefined;
  const granted = new Set(record.tokens?.scope?.split(" ") ?? []);
  return record.requiredScope.split(" ").some((s) => s && !granted.has(s)) ? record.requiredScope : undefined;
}

/** Folder under `$KEEL_HOME` holding one file per server URL. */
export const OAUTH_DIR = MCP_OAUTH_DIR;

/**
 * Tokens and client registrations under `$KEEL_HOME/mcp-oauth/<sha256(url)>.json`: the folder
 * 0700, each file 0600, written atomically (temp file + rename) under a cross-process lock, keyed by
 * the server URL so a token only ever goes back to the server it was issued for. Never in a
 * workspace, never in events: nothing here is logged.
 */
export class OAuthStore {
  constructor(private readonly keelHome: string) {}

  /** The file of a server URL. */
  fileFor(serverUrl: string): string {
    const key = createHash("sha256").update(normalizeUrl(serverUrl)).digest("hex").slice(0, 32);
    return join(this.keelHome, OAUTH_DIR, `${key}.json`);
  }

  /** The record of a server URL (empty when none). Throws StateError when the file is unreadable. */
  async read(serverUrl: string): Promise<OAuthRecord> {
    const file = this.fileFor(serverUrl);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { serverUrl };
      throw new StateError(`Cannot read ${file}: ${errorMessage(error)}`, file);
    }
    try {
      const data = JSON.parse(text) as OAuthRecord;
      // A file for another URL (a hash collision, or a copied file) is not this server's.
      return data.serverUrl === normalizeUrl(serverUrl) ? data : { serverUrl };
    } catch {
      throw new StateError(`${file} is not valid JSON; remove it with \`keel mcp logout\` for its server, then log in again.`, file);
    }
  }

  /**
   * Read-modify-write under the file's lock; `change` returns the new record (or undefined to keep it). A lock
   * another process took over meanwhile throws StateError instead of writing over what that process wrote.
   */
  async update(serverUrl: string, change: (cur: OAuthRecord) => OAuthRecord | undefined | Promise<OAuthRecord | undefined>): Promise<OAuthRecord> {
    return this.locked(serverUrl, async (held) => {
      const cur = await this.read(serverUrl);
      const next = await change(cur);
      if (!next) return cur;
      held();
      await this.write(serverUrl, next);
      return next;
    });
  }

  /** Runs `fn` holding the server's lock (other keel processes wait): used around a token refresh. `held`: see `withFileLock`. */
  async locked<T>(serverUrl: string, fn: (held: LockHeld) => Promise<T>): Promise<T> {
    await mkdir(join(this.keelHome, OAUTH_DIR), { recursive: true, mode: 0o700 });
    return withFileLock(this.fileFor(serverUrl), fn);
  }

  /** Writes a record atomically with mode 0600 (call under `locked`); a failed write throws StateError naming the file and why, the file unchanged. */
  async write(serverUrl: string, record: OAuthRecord): Promise<void> {
    await mkdir(join(this.keelHome, OAUTH_DIR), { recursive: true, mode: 0o700 });
    const data: OAuthRecord = { ...record, serverUrl: normalizeUrl(serverUrl), savedAt: new Date().toISOString() };
    const file = this.fileFor(serverUrl);
    try {
      await writeFileAtomic(file, JSON.stringify(data, null, 2) + "\n", 0o600);
    } catch (error) {
      // A full or read-only $KEEL_HOME: the file keeps its previous record (the write is atomic); say where and why
      // (the URL without its credentials: this message is printed, e.g. as the warning of a refresh that was not saved).
      throw new StateError(
        `Could not save the login of ${urlForDisplay(data.serverUrl)} to ${file}: ${storageMessage(error).replace(/\.?$/, ".")} The file keeps what it held before.`,
        file,
        {
          cause: error,
        },
      );
    }
  }

  /** Deletes what is stored for a server URL; returns what was there (`tokens`, `client`), for `keel mcp logout`. */
  async remove(serverUrl: string): Promise<{ tokens: boolean; client: boolean }> {
    return this.locked(serverUrl, async () => {
      const cur = await this.read(serverUrl).catch(() => ({ serverUrl }) as OAuthRecord);
      await rm(this.fileFor(serverUrl), { force: true });
      return { tokens: Boolean(cur.tokens), client: Boolean(cur.client) };
    });
  }
}

/** The URL as keel keys it: parsed and printed back (so `HTTP://Host:80/x` and `http://host/x` are one server). */
export function normalizeUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}
