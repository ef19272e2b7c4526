import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bwrapArgs } from "../../../core/sandbox/bwrap.js";
import { MAX_PINNED_PARENTS, pinnedParents } from "../../../core/sandbox/pinned-parents.js";

let base: string | undefined;
afterEach(() => {
  if (base) rmSync(base, { recursive: true, force: true });
  base = undefined;
});

function tree(...dirs: string[]): string {
  base = realpathSync(mkdtempSync(join(tmpdir(), "keel-pinned-")));
  for (const dir of dirs) mkdirSync(join(base, dir), { recursive: true });
  return base;
}

const settings = { mode: "workspace-write", network: true, denyRead: [], credentials: "hidden", workspaceCommands: true, unixSockets: true } as const;

describe("pinnedParents (the folders made mount points between the boundary and what it keeps read-only or hidden)", () => {
  it("lists each folder between, once, shallowest first; none for a path directly under the root, missing, outside, or inside a read-only folder", () => {
    const root = tree("a/b/keelhome/x/y", "a/c/plugin", "top", "other");
    const kh = join(root, "a/b/keelhome");
    const paths = [kh, join(root, "a/c/plugin"), join(root, "top"), join(root, "a/missing/z"), "/etc/passwd", join(kh, "x/y")];
    expect(pinnedParents(root, paths, [kh])).toEqual([join(root, "a"), join(root, "a/b"), join(root, "a/c")]);
  });

  it("works from the real path of a root reached through a link", () => {
    const real = tree("ws/a/keelhome");
    symlinkSync(join(real, "ws"), join(real, "link"));
    expect(pinnedParents(join(real, "link"), [join(real, "ws/a/keelhome")], [])).toEqual([join(real, "ws/a")]);
  });

  it("refuses past MAX_PINNED_PARENTS folders, so the argument list stays bounded", () => {
    const root = tree(...Array.from({ length: MAX_PINNED_PARENTS + 1 }, (_, i) => `d${i}/x`));
    const paths = Array.from({ length: MAX_PINNED_PARENTS + 1 }, (_, i) => join(root, `d${i}/x`));
    expect(() => pinnedParents(root, paths, [])).toThrow(/more than 256/);
    expect(pinnedParents(root, paths.slice(1), [])).toHaveLength(MAX_PINNED_PARENTS);
  });

  it("bwrapArgs binds them after the boundary and before the read-only folders, in workspace-write mode only", () => {
    const root = tree("sub/keelhome", ".git");
    const kh = join(root, "sub/keelhome");
    const target = { root, cwd: root, argv: ["true"], readOnly: [kh] };
    const args = bwrapArgs(settings, target);
    const at = (...seq: string[]) => args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s));
    expect(at("--bind", root, root)).toBeGreaterThan(-1);
    expect(at("--bind", join(root, "sub"), join(root, "sub"))).toBeGreaterThan(at("--bind", root, root));
    expect(at("--ro-bind", kh, kh)).toBeGreaterThan(at("--bind", join(root, "sub"), join(root, "sub")));
    expect(bwrapArgs({ ...settings, mode: "read-only" }, target)).not.toContain(join(root, "sub"));
  });
});
