import { execa } from "execa";
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { KEEL_BIN } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// keel runs as another user (uid 1000) through util-linux's setpriv, which only root may do: elsewhere these tests
// are skipped. As root, file permissions do not bite, so this is the only way to meet a real EACCES.
const asRoot = process.geteuid?.() === 0;
const USER = 1000;

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** Gives `path` and everything below it to USER. */
function giveAway(path: string): void {
  chownSync(path, USER, USER);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) giveAway(child);
    else chownSync(child, USER, USER);
  }
}

/** `keel --yes call TOOL --input INPUT` as USER, in the workspace; its output and exit code. */
async function callAsUser(tool: string, input: object) {
  execFileSync("setpriv", ["--version"]); // fails the test with a clear error where util-linux's setpriv is missing
  const env = { ...ws!.env, HOME: dirname(ws!.keelHome), SUDO_UID: undefined };
  const r = await execa(
    "setpriv",
    ["--reuid", String(USER), "--regid", String(USER), "--clear-groups", process.execPath, KEEL_BIN, "--yes", "call", tool, "--input", JSON.stringify(input)],
    { cwd: ws!.root, env, extendEnv: false, reject: false, stdin: "ignore" },
  );
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode };
}

describe.skipIf(!asRoot)("file tools where keel runs as a user who may not write (real EACCES, setpriv)", () => {
  it("write_file into a folder another user owns says keel may not write there and not to retry, and leaves nothing there", async () => {
    ws = makeWorkspace({ "readme.md": "hello\n" });
    const locked = ws.path("locked");
    mkdirSync(locked);
    writeFileSync(join(locked, "kept.txt"), "theirs\n");
    giveAway(dirname(ws.root));
    // `locked/` stays root's: the user may read it, not write it
    chownSync(locked, 0, 0);
    chownSync(join(locked, "kept.txt"), 0, 0);
    chmodSync(locked, 0o755);
    chmodSync(dirname(ws.root), 0o755);

    const fresh = await callAsUser("write_file", { path: "locked/new.txt", content: "mine\n" });
    expect(fresh.exitCode, fresh.stderr).toBe(1);
    expect(fresh.stdout).toContain(
      "Could not write locked/new.txt: keel may not write there (EACCES). locked/new.txt was left unchanged; this write cannot succeed as things stand: do not retry it, ask the user or write elsewhere.",
    );
    const deeper = await callAsUser("write_file", { path: "locked/sub/new.txt", content: "mine\n" });
    expect(deeper.exitCode, deeper.stderr).toBe(1);
    expect(deeper.stdout).toContain("Could not write locked/sub/new.txt: keel may not write there (EACCES).");
    const over = await callAsUser("write_file", { path: "locked/kept.txt", content: "mine\n" });
    expect(over.exitCode, over.stderr).toBe(1);
    expect(over.stdout).toContain("Could not write locked/kept.txt: keel may not write there (EACCES). locked/kept.txt was left unchanged");
    // nothing was made there: no file, no folder, no temp file
    expect(readdirSync(locked)).toEqual(["kept.txt"]);
    expect(ws.read("locked/kept.txt")).toBe("theirs\n");
    // and the user's own folder still takes writes
    const ok = await callAsUser("write_file", { path: "mine.txt", content: "mine\n" });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(existsSync(ws.path("mine.txt"))).toBe(true);
  });
});
