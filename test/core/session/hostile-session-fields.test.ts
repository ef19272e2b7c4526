import { afterEach, describe, expect, it } from "vitest";
import { runKeel } from "../../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// A repository can commit .keel/sessions/<id>/ holding any JSON: keel sessions list must list the other
// sessions and say what is wrong with that one, never fail as a whole.

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const META = { id: "x", createdAt: "2026-01-01T00:00:00.000Z" };

describe("keel sessions list with a committed session whose files hold other types than keel writes", () => {
  it("lists the workspace's other sessions and says which file and field of that one are not keel's", async () => {
    ws = makeWorkspace(
      {
        "script.json": [{ text: "hello" }],
        // status.json with a number for the date (the sort failed: `b.updatedAt.localeCompare is not a function`) and an object for a title
        ".keel/sessions/odd/session.json": { ...META, id: "odd" },
        ".keel/sessions/odd/status.json": { status: "idle", updatedAt: 5, title: { a: 1 }, turn: 1 },
        ".keel/sessions/odd/state.json": { status: "idle", updatedAt: "2026-01-02T00:00:00.000Z", title: "from the checkpoint", turn: 2 },
        // neither status.json nor state.json usable
        ".keel/sessions/worse/session.json": { ...META, id: "worse" },
        ".keel/sessions/worse/state.json": { updatedAt: 7, turn: "many" },
        // session.json's date not a string
        ".keel/sessions/meta/session.json": { ...META, id: "meta", createdAt: 5 },
      },
      { git: true },
    );
    const run = await runKeel(["run", "--model", "scripted:script.json", "--session", "mine", "hi"], { cwd: ws.root, env: ws.env });
    expect(run.exitCode, run.stderr).toBe(0);

    const list = await runKeel(["--json", "sessions", "list"], { cwd: ws.root, env: ws.env });
    expect(list.exitCode, list.stderr).toBe(0);
    const rows = list.json().sessions as { id: string; status: string; title: string; turns: number; note?: string }[];
    const row = (id: string) => rows.find((r) => r.id === id)!;
    expect(row("mine")).toMatchObject({ status: "idle", title: "hi" });
    expect(row("odd")).toMatchObject({ status: "idle", title: "from the checkpoint", turns: 2 });
    expect(row("odd").note).toContain(
      `${ws.path(".keel/sessions/odd/status.json")} is not as keel writes it (title, updatedAt: not the type keel writes there)`,
    );
    expect(row("worse")).toMatchObject({ status: "unreadable", title: "", turns: 0 });
    expect(row("worse").note).toContain(
      `${ws.path(".keel/sessions/worse/state.json")} is not as keel writes it (updatedAt, turn: not the type keel writes there)`,
    );
    expect(row("worse").note).toContain("Move the session's folder away if it is not yours.");
    expect(row("meta")).toMatchObject({ status: "unreadable" });
    expect(row("meta").note).toContain(`${ws.path(".keel/sessions/meta/session.json")} is not as keel writes it (createdAt: not the type keel writes there)`);

    const table = await runKeel(["sessions", "list"], { cwd: ws.root, env: ws.env });
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^mine +\S+ +idle /m);
    expect(table.stdout).not.toContain("[object Object]");
  });
});
