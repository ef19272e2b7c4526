import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
import type { Host } from "../../../core/host.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";
import { closeAfterEach, openTestHost } from "../../helpers/test-host.js";

let ws: TempWorkspace;
let host: Host;
const call = (tool: string, input: unknown) => host.runTool({ tool, input }, { yes: true });
const log = () => ws.path(".keel/state/teams/live/reviewers/messages.jsonl");

beforeEach(async () => {
  ws = makeWorkspace();
  host = await openTestHost(ws);
  await call("team_create", { team_name: "reviewers", members: ["alice", "bob"], description: "code review" });
});
closeAfterEach(() => ({ host, ws }));

describe("team runtime", () => {
  it("refuses a duplicate name ignoring case and a recipient who is not a member", async () => {
    const dup = await call("team_create", { team_name: "REVIEWERS", members: ["carol"] });
    expect(dup).toMatchObject({ ok: false, code: "precondition_failed" });
    expect(dup.content).toContain('A team named "reviewers" already exists');
    const stranger = await call("send_message", { team_name: "reviewers", message: "hi", recipient: "mallory" });
    expect(stranger.ok).toBe(false);
    expect(stranger.content).toContain('"mallory" is not a member of team "reviewers" (members: alice, bob)');
    const listed = await call("team_list", {});
    expect((listed.data as any).teams).toHaveLength(1);
    expect((listed.data as any).teams[0]).toMatchObject({ name: "reviewers", members: ["alice", "bob"] });
  });

  it("keeps messages in order with ids and timestamps; recipient, limit and since cursor filter them", async () => {
    await call("send_message", { team_name: "reviewers", message: "one for alice", recipient: "alice", sender: "lead" });
    await call("send_message", { team_name: "Reviewers", message: "everyone", sender: "lead" });
    await call("send_message", { team_name: "reviewers", message: "for bob", recipient: "bob" });
    await call("send_message", { team_name: "reviewers", message: "two for alice", recipient: "alice", metadata: { pr: 7 } });

    const alice = await call("team_messages", { team_name: "reviewers", recipient: "alice" });
    const msgs = (alice.data as any).messages;
    expect(msgs.map((m: any) => m.message)).toEqual(["one for alice", "everyone", "two for alice"]);
    expect(msgs.map((m: any) => m.id)).toEqual(["msg_1", "msg_2", "msg_4"]);
    expect(msgs[2].metadata).toEqual({ pr: 7 });
    expect(Date.parse(msgs[0].ts)).toBeLessThanOrEqual(Date.parse(msgs[2].ts));
    expect((alice.data as any).next_since).toBe(4);

    const since = await call("team_messages", { team_name: "reviewers", recipient: "alice", since: "msg_1" });
    expect((since.data as any).messages.map((m: any) => m.id)).toEqual(["msg_2", "msg_4"]);
    const page = await call("team_messages", { team_name: "reviewers", recipient: "alice", since: 1, limit: 1 });
    expect((page.data as any).messages.map((m: any) => m.id)).toEqual(["msg_2"]);
    const last = await call("team_messages", { team_name: "reviewers", limit: 2 });
    expect((last.data as any).messages.map((m: any) => m.id)).toEqual(["msg_3", "msg_4"]);
    const none = await call("team_messages", { team_name: "reviewers", recipient: "alice", since: 4 });
    expect((none.data as any).messages).toEqual([]);
    expect((none.data as any).next_since).toBe(4);
  });

  it("reads one recipient since a cursor without parsing earlier lines (index of offsets)", async () => {
    for (const m of ["a1", "b1", "a2", "a3"]) await call("send_message", { team_name: "reviewers", message: m, recipient: m[0] === "a" ? "alice" : "bob" });
    const text = readFileSync(log(), "utf8");
    const first = text.indexOf("\n");
    // Corrupt the first line in place (same length): only a full scan would trip over it.
    writeFileSync(log(), "#".repeat(first) + text.slice(first));
    const since = await call("team_messages", { team_name: "reviewers", recipient: "alice", since: 1 });
    expect(since.ok).toBe(true);
    expect((since.data as any).messages.map((m: any) => m.message)).toEqual(["a2", "a3"]);
    const bob = await call("team_messages", { team_name: "reviewers", recipient: "bob" });
    expect((bob.data as any).messages.map((m: any) => m.message)).toEqual(["b1"]);
    const all = await call("team_messages", { team_name: "reviewers" });
    expect(all.ok).toBe(false);
    expect(all.content).toContain(log());
  });

  it("stores any member name safely, including __proto__", async () => {
    expect((await call("team_create", { team_name: "odd", members: ["__proto__", "constructor"] })).ok).toBe(true);
    expect((await call("send_message", { team_name: "odd", message: "p", recipient: "__proto__" })).ok).toBe(true);
    expect((await call("send_message", { team_name: "odd", message: "c", recipient: "constructor" })).ok).toBe(true);
    const proto = await call("team_messages", { team_name: "odd", recipient: "__proto__" });
    expect((proto.data as any).messages.map((m: any) => m.message)).toEqual(["p"]);
    expect(({} as any).push).toBeUndefined();
  });

  it("cuts a torn last line (crash mid-append) and keeps numbering", async () => {
    await call("send_message", { team_name: "reviewers", message: "ok", recipient: "alice" });
    appendFileSync(log(), '{"id":"msg_2","seq":2,"ts":"2026');
    const sent = await call("send_message", { team_name: "reviewers", message: "after crash", recipient: "alice" });
    expect(sent.ok).toBe(true);
    expect((sent.data as any).message.id).toBe("msg_2");
    const lines = readFileSync(log(), "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).message)).toEqual(["ok", "after crash"]);
  });

  it("archives messages on team_delete and merges declared teams every time", async () => {
    await call("send_message", { team_name: "reviewers", message: "keep me", recipient: "bob" });
    const deleted = await call("team_delete", { team_name: "reviewers" });
    expect(deleted.ok).toBe(true);
    const archive = (deleted.data as any).archived.archive as string;
    expect(readFileSync(ws.path(".keel/state/teams", archive, "messages.jsonl"), "utf8")).toContain("keep me");
    expect((await call("team_get", { team_name: "reviewers" })).ok).toBe(false);

    // Declared teams appear alongside created ones, even though state exists.
    await call("team_create", { team_name: "builders", members: ["carol"] });
    ws.write(".keel/teams.json", {
      teams: [
        { name: "ops", members: ["dan"] },
        { name: "Builders", members: ["erin"] },
      ],
    });
    ws.write(".claw-teams.json", { teams: { qa: { members: ["fay"] } } });
    const list = await call("team_list", {});
    const teams = (list.data as any).teams as any[];
    expect(teams.map((t) => t.name)).toEqual(["builders", "ops", "qa"]);
    expect(teams[0].members).toEqual(["erin", "carol"]);
    expect((await call("send_message", { team_name: "ops", message: "hi dan", recipient: "dan" })).ok).toBe(true);
    const declaredDelete = await call("team_delete", { team_name: "qa" });
    expect(declaredDelete.ok).toBe(false);
    expect(declaredDelete.content).toContain(".claw-teams.json");
    expect((await call("team_create", { team_name: "OPS" })).ok).toBe(false);
  });
  it("says why a declared teams file cannot be read instead of skipping it, and leaves it as it is", async () => {
    // Not a regular file (a folder), then one too large to be a manifest: each an error naming the file.
    mkdirSync(ws.path(".claw-teams.json"));
    const folder = await call("team_list", {});
    expect(folder).toMatchObject({ ok: false, code: "execution_failed" });
    expect(folder.content).toContain(`Declared teams file ${ws.path(".claw-teams.json")} cannot be read`);
    expect(folder.content).toContain("not a regular file");
    rmSync(ws.path(".claw-teams.json"), { recursive: true });
    const big = JSON.stringify({ teams: [{ name: "qa", members: ["fay"] }], pad: "x".repeat(2 * 1024 * 1024) });
    writeFileSync(ws.path(".claw-teams.json"), big);
    const tooBig = await call("team_list", {});
    expect(tooBig.ok).toBe(false);
    expect(tooBig.content).toContain("bytes, more than the");
    expect(readFileSync(ws.path(".claw-teams.json"), "utf8")).toBe(big);
    // Once it can be read, its teams are listed again.
    ws.write(".claw-teams.json", { teams: [{ name: "qa", members: ["fay"] }] });
    expect(((await call("team_list", {})).data as any).teams.map((t: any) => t.name)).toEqual(["qa", "reviewers"]);
  });
});
