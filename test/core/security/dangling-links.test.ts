import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** `keel [--yes] call write_file` in the workspace, as JSON. */
async function write(path: string, yes = false) {
  const args = [...(yes ? ["--yes"] : []), "--json", "call", "write_file", "--input", JSON.stringify({ path, content: "#!/bin/sh\necho pwned\n" })];
  return runKeel(args, { cwd: ws!.root, env: ws!.env });
}

describe("a committed dangling symlink is judged where a write through it lands (real CLI)", () => {
  it("cannot create files in .git/ or .keel/, even with --yes", async () => {
    ws = makeWorkspace({ "README.md": "hi\n" }, { git: true });
    mkdirSync(ws.path("docs"));
    symlinkSync("../.git/hooks/post-checkout", ws.path("docs", "notes.md"));
    symlinkSync("../.git/newdir", ws.path("docs", "dirlink"));
    symlinkSync("../.keel/config.local.json", ws.path("docs", "cfg.json"));
    for (const path of ["docs/notes.md", "docs/dirlink/x", "docs/cfg.json"]) {
      const run = await write(path, true);
      expect(run.json(), path).toMatchObject({ ok: false, code: "permission_denied", phase: "permission" });
      expect(run.json().content).toMatch(/inside \.(git|keel)\/, which keel protects/);
    }
    expect(existsSync(ws.path(".git", "hooks", "post-checkout"))).toBe(false);
    expect(existsSync(ws.path(".git", "newdir"))).toBe(false);
    expect(existsSync(ws.path(".keel", "config.local.json"))).toBe(false);
  });

  it("matches deny and allow rules against the link's target, not its name", async () => {
    ws = makeWorkspace({ "src/app.ts": "app\n" });
    ws.writeUserConfig({ permissions: { allow: ["write_file(docs/**)"], deny: ["write_file(**/.env)"] } });
    mkdirSync(ws.path("docs"));
    symlinkSync("../.env", ws.path("docs", "env.txt"));
    symlinkSync("../src/new.ts", ws.path("docs", "new.ts"));
    const denied = await write("docs/env.txt");
    expect(denied.json()).toMatchObject({ ok: false, code: "permission_denied" });
    expect(denied.json().content).toContain('deny rule "write_file(**/.env)"');
    expect(existsSync(ws.path(".env"))).toBe(false);
    // The allow rule covers docs/, and the link's target is src/: the write asks instead of running.
    const asked = await write("docs/new.ts");
    expect(asked.json()).toMatchObject({ ok: false, code: "approval_required" });
    expect(existsSync(ws.path("src", "new.ts"))).toBe(false);
    const plain = await write("docs/plain.md");
    expect(plain.json()).toMatchObject({ ok: true });
  });
});
