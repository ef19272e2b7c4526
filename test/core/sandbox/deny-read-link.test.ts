import { symlinkSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Runs the real bubblewrap (`bwrap`), which .ci/run installs (Debian package bubblewrap).

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const call = (command: string) => runKeel(["--yes", "--json", "call", "bash", "--input", JSON.stringify({ command })], { cwd: ws!.root, env: ws!.env });

describe("a denyRead path reached through a link in the workspace (real CLI, bwrap)", () => {
  it("is hidden where it leads, in and out of the link, for a read-only sandbox", async () => {
    ws = makeWorkspace({ "s1/token": "S1TOKEN\n", "real.env": "DOTENV=1\n" }, { git: true, under: "/var/tmp" });
    symlinkSync("s1", ws.path("secrets"));
    symlinkSync("real.env", ws.path(".env"));
    symlinkSync(".env", ws.path("envlink"));
    ws.writeUserConfig({ sandbox: { mode: "read-only", denyRead: ["secrets", ".env"] } });
    const r = await call("cat secrets/token s1/token .env real.env envlink; true");
    expect(r.json(), r.stderr).toMatchObject({ ok: true, metadata: { sandbox: "read-only" } });
    expect(r.json().content).not.toMatch(/S1TOKEN|DOTENV/);
  });

  it("in workspace-write mode, is refused: a command could re-point the link at a decoy and read the secret in the next call", async () => {
    ws = makeWorkspace({ "s1/token": "S1TOKEN\n", "notes.txt": "decoy\n" }, { git: true, under: "/var/tmp" });
    symlinkSync("s1", ws.path("secrets"));
    ws.writeUserConfig({ sandbox: { mode: "workspace-write", denyRead: ["secrets"] } });
    const first = await call("ln -sfn notes.txt secrets; echo relinked");
    expect(first.json().code).toBe("precondition_failed");
    expect(first.json().content).toMatch(
      /sandbox\.denyRead\) hidden: its path goes through the link .*\/secrets inside the workspace.*Name the real path in denyRead/,
    );
    expect(first.json().content).not.toContain("relinked");
    // Had it run (as before), the next call would have hidden notes.txt and shown the token.
    const second = await call("cat s1/token; true");
    expect(second.json().content).not.toContain("S1TOKEN");

    // Naming the real path instead works, and re-pointing the link then exposes nothing.
    ws.writeUserConfig({ sandbox: { mode: "workspace-write", denyRead: ["s1"] } });
    expect((await call("ln -sfn notes.txt secrets && echo relinked")).json().content).toContain("relinked");
    const third = await call("cat s1/token secrets; true");
    expect(third.json(), third.stderr).toMatchObject({ ok: true, metadata: { sandbox: "workspace-write" } });
    expect(third.json().content).not.toContain("S1TOKEN");
  });
});
