import { readFileSync, statSync } from "node:fs";

/** Largest `/etc/passwd` or `/etc/group` keel reads (a bigger one is not read: group-writable is then refused). */
const MAX_TABLE_BYTES = 4 * 1024 * 1024;

/**
 * A judge of group-writable files: `(uid, gid)` is true when `gid` is the private group of the user `uid` — no
 * other user can be in it — so a file of that user's that its group may write can still be written by that user
 * alone (ssh's StrictModes reasons the same way). Exactly: `/etc/passwd` gives `uid` the primary group `gid`,
 * every `/etc/group` line with `gid` bears the user's own name and lists no member but the user, and no other
 * `/etc/passwd` user has `gid` as its primary group. What these files do not show (users and groups from LDAP or
 * another directory, a platform without them) is judged not private: keel then refuses group-writable files.
 * Each judge reads the two files at most once. Never throws.
 */
export function privateGroupJudge(read: (path: string) => string | undefined = readTable): (uid: number, gid: number) => boolean {
  let tables: { passwd: string[][]; group: string[][] } | undefined;
  const memo = new Map<string, boolean>();
  return (uid, gid) => {
    const key = `${uid}:${gid}`;
    let answer = memo.get(key);
    if (answer === undefined) {
      tables ??= { passwd: rows(read("/etc/passwd")), group: rows(read("/etc/group")) };
      answer = isPrivate(tables.passwd, tables.group, uid, gid);
      memo.set(key, answer);
    }
    return answer;
  };
}

function isPrivate(passwd: string[][], group: string[][], uid: number, gid: number): boolean {
  const users = passwd.filter((r) => r.length >= 4 && r[2] === String(uid));
  if (users.length !== 1 || users[0]![3] !== String(gid)) return false;
  const name = users[0]![0]!;
  if (passwd.some((r) => r[3] === String(gid) && r[2] !== String(uid))) return false;
  const lines = group.filter((r) => r.length >= 3 && r[2] === String(gid));
  if (lines.length === 0) return false;
  return lines.every((r) => r[0] === name && (r[3] ?? "").split(",").every((m) => m.trim() === "" || m.trim() === name));
}

/** The colon-separated fields of each line that is not a comment or an NIS `+`/`-` entry (which makes the table inexact: no rows). */
function rows(text: string | undefined): string[][] {
  if (text === undefined) return [];
  const lines = text.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
  if (lines.some((l) => l.startsWith("+") || l.startsWith("-"))) return [];
  return lines.map((l) => l.split(":"));
}

function readTable(path: string): string | undefined {
  try {
    return statSync(path).size > MAX_TABLE_BYTES ? undefined : readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
