import { chmodSync, chownSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Folders of another user are made with chown, which only root may do; those tests are skipped elsewhere.
const asRoot = process.geteuid?.() === 0;
/** The other user: any uid that is not ours, not root's and not SUDO_UID. A gid of that number is in no /etc/group. */
const OTHER = 54321;

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

/** `$KEEL_HOME` at `<base>/shared/you/.keel` (all made, yours): returns the folders. */
function layout(): { shared: string; you: string; home: string } {
  const shared = ws!.path("shared");
  const you = join(shared, "you");
  const home = join(you, ".keel");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return { shared, you, home };
}

const run = (home: string) => runKeel(["plugins"], { cwd: ws!.root, env: { ...ws!.env, SUDO_UID: undefined, KEEL_HOME: home } });

describe("every folder above $KEEL_HOME must be yours or root's and writable by no one else (as ssh checks a key's folders)", () => {
  it.skipIf(!asRoot)("a folder above owned by another user stops every command with exit 2 naming it and what to do", async () => {
    ws = makeWorkspace();
    const { shared, home } = layout();
    chownSync(shared, OTHER, OTHER);
    const out = await run(home);
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toContain(
      `KEEL_HOME (${home}): ${shared}, a folder above ${home}, belongs to another user (uid ${OTHER}), who can rename what is in it`,
    );
    expect(out.stderr).toContain("`chown` that folder to you or root and `chmod go-w` it");
  });

  it("a folder above that every user may write is refused, through a link too; with the sticky bit and your folder below it, it is fine", async () => {
    ws = makeWorkspace();
    const { shared, you, home } = layout();
    chmodSync(shared, 0o777);
    const out = await run(home);
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toContain(`${shared} can be written by every user (mode 777), a folder above ${home}, so another user can rename what is in it`);
    // reached through a link of yours, the folder where it really is counts
    const link = ws.path("link");
    symlinkSync(you, link);
    const linked = await run(join(link, ".keel"));
    expect(linked.exitCode).toBe(2);
    expect(linked.stderr).toContain(`${shared} can be written by every user (mode 777), a folder above ${home}`);
    // /tmp-like: sticky, and the folder below it is yours: only you may rename it
    chmodSync(shared, 0o1777);
    const sticky = await run(home);
    expect(sticky.exitCode, sticky.stderr).toBe(0);
  });

  it.skipIf(!asRoot)(
    "a sticky folder above is refused when the entry below it is another user's; a group-writable one unless the group is its owner's alone",
    async () => {
      ws = makeWorkspace();
      const { shared, you, home } = layout();
      chmodSync(shared, 0o1777);
      chownSync(you, OTHER, OTHER);
      const theirs = await run(home);
      expect(theirs.exitCode).toBe(2);
      expect(theirs.stderr).toContain(`${you}, a folder above ${home}, belongs to another user (uid ${OTHER})`);
      chownSync(you, process.geteuid!(), process.getegid!());
      chmodSync(shared, 0o775);
      chownSync(shared, process.geteuid!(), OTHER);
      const group = await run(home);
      expect(group.exitCode).toBe(2);
      expect(group.stderr).toContain(
        `${shared} can be written by its group (gid ${OTHER}, mode 775), which is not a group of its owner alone, a folder above ${home}`,
      );
    },
  );
});
