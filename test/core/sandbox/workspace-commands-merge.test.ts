import { describe, expect, it } from "vitest";
import { sandboxSettings, strictest } from "../../../core/sandbox/sandbox-config.js";
import { mergeLayers } from "../../../core/config/merge-layers.js";

describe("sandbox.workspaceCommands: how levels merge", () => {
  it("is on whenever the merged sandbox is on, off with the sandbox off; true alone does not turn the bash sandbox on", () => {
    expect(strictest(["workspace-write"]).workspaceCommands).toBe(true);
    expect(strictest([{ network: false }])).toMatchObject({ mode: "workspace-write", workspaceCommands: true });
    expect(strictest(["off"]).workspaceCommands).toBe(false);
    expect(strictest([{ workspaceCommands: true }])).toMatchObject({ mode: "off", workspaceCommands: true });
    expect(sandboxSettings({ workspaceCommands: true })).toMatchObject({ mode: "off", workspaceCommands: true });
    // An object naming anything else still turns the sandbox on, as before.
    expect(sandboxSettings({ denyRead: [".env"] })).toMatchObject({ mode: "workspace-write", workspaceCommands: true });
  });

  it("true from any level wins; a false counts only from your level", () => {
    expect(strictest([{ mode: "workspace-write", workspaceCommands: false }]).workspaceCommands).toBe(false);
    expect(strictest([{ mode: "read-only", workspaceCommands: false }, { workspaceCommands: true }]).workspaceCommands).toBe(true);
    const user = { source: "user" as const, file: "/home/me/.keel/config.json" };
    const project = { source: "project" as const, file: "/repo/keel.config.json" };
    // A workspace's false is dropped, trusted or not, with a warning naming the file; the rest of its value stays.
    for (const trusted of [true, false]) {
      const merged = mergeLayers(
        [
          { ...user, value: { sandbox: "workspace-write" } },
          { ...project, value: { sandbox: { workspaceCommands: false, network: false } } },
        ],
        trusted,
      );
      expect(merged.value.sandbox).toMatchObject({ mode: "workspace-write", network: false, workspaceCommands: true });
      expect(merged.diagnostics).toContainEqual(expect.objectContaining({ file: project.file, path: "sandbox.workspaceCommands", severity: "warning" }));
    }
    // A workspace value that said only false is no value: it does not turn the bash sandbox on either.
    expect(mergeLayers([{ ...project, value: { sandbox: { workspaceCommands: false } } }], true).value.sandbox).toBeUndefined();
    // Yours turns it off; a workspace's true turns it back on.
    const mine = { ...user, value: { sandbox: { mode: "workspace-write", workspaceCommands: false } } };
    expect(mergeLayers([mine], false).value.sandbox).toMatchObject({ workspaceCommands: false });
    expect(mergeLayers([mine, { ...project, value: { sandbox: { workspaceCommands: true } } }], false).value.sandbox).toMatchObject({
      workspaceCommands: true,
    });
  });
});
