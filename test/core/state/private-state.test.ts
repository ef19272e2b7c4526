import { chmodSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** The permission bits others (group and everyone) have on `path`, as octal text ("0" when none). */
const others = (path: string) => (statSync(path).mode & 0o077).toString(8);

/** Every folder and file under `dir` (itself included), depth first. */
function tree(dir: string): string[] {
  const out = [dir];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    out.push(...(e.isDirectory() ? tree(path) : [path]));
  }
  return out;
}

describe("keel's state is yours alone: other users of the machine cannot read your sessions and events", () => {
  it("the .keel folder keel makes, and its sessions, are 0700; event logs 0600", async () => {
    ws = makeWorkspace({ "s.json": [{ text: "hello back" }] }, { git: true });
    const r = await runKeel(["run", "--model", "scripted:s.json", "--session", "s1", "hello"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(others(ws.path(".keel"))).toBe("0");
    for (const dir of tree(ws.path(".keel")).filter((p) => statSync(p).isDirectory())) expect(others(dir), dir).toBe("0");
    expect(others(ws.path(".keel", "sessions", "s1", "events.jsonl"))).toBe("0");
  });

  it("in a .keel everyone may read (git made it for a committed .keel/workflows/), keel's folders and logs are still private", async () => {
    ws = makeWorkspace({ "s.json": [{ text: "hello back" }] }, { git: true });
    mkdirSync(ws.path(".keel", "workflows"), { recursive: true });
    chmodSync(ws.path(".keel"), 0o755);
    const call = await runKeel(["call", "read_file", "--input", JSON.stringify({ path: "s.json" })], { cwd: ws.root, env: ws.env });
    expect(call.exitCode, call.stderr).toBe(0);
    expect(others(ws.path(".keel", "events.jsonl"))).toBe("0");
    const r = await runKeel(["run", "--model", "scripted:s.json", "--session", "s1", "hello"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(others(ws.path(".keel", "sessions"))).toBe("0");
    expect(others(ws.path(".keel", "sessions", "s1"))).toBe("0");
    // The folder you made keeps its mode: keel does not change what is not its own.
    expect(others(ws.path(".keel"))).toBe("55");
  });

  it("keel init's starter files are the project's, not keel's state: their mode is the umask's, as for any file you make", async () => {
    ws = makeWorkspace({}, { git: true, marker: false });
    const r = await runKeel(["init"], { cwd: ws.root, env: ws.env });
    expect(r.exitCode, r.stderr).toBe(0);
    // The .keel it makes for its .gitignore is keel's state folder: private, as keel makes it everywhere else.
    expect(others(ws.path(".keel"))).toBe("0");
    expect(others(ws.path(".keel", ".gitignore"))).toBe("0");
    // (process.umask() reads it: 0644 under the usual 022; they were 0600 whatever the umask)
    const umask = process.umask();
    for (const file of ["keel.config.json", ".mcp.json", "AGENTS.md", join("plugins", "example", "plugin.json")])
      expect((statSync(ws.path(file)).mode & 0o777).toString(8), file).toBe((0o666 & ~umask).toString(8));
  });
});
