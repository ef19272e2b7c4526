import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_OUTPUT_TOKENS } from "../../../core/model/model-spec.js";
import { initialState, loadSessionState, readSessionMeta } from "../../../core/session/session-store.js";
import { makeWorkspace, type TempWorkspace } from "../../helpers/temp-workspace.js";

// Fields session-schema.ts leaves optional but keel's readers took as given: a hand-written or old session file
// may lack them. Each is filled in at the boundary (one place: session-schema.ts) or optional in the type.

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** Writes session `id`'s session.json and state.json (a checkpoint with an empty log) as given. */
function writeSession(root: string, id: string, meta: object, state: object): string {
  const stateDir = join(root, ".keel");
  const dir = join(stateDir, "sessions", id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "session.json"), JSON.stringify({ id, ...meta }));
  writeFileSync(join(dir, "state.json"), JSON.stringify(state));
  writeFileSync(join(dir, "events.jsonl"), "");
  return stateDir;
}

describe("a session file without the fields keel's schema leaves optional", () => {
  it("a scripted model without contextWindow and maxOutputTokens gets the defaults; no plugin or server record is needed", async () => {
    ws = makeWorkspace();
    const meta = { createdAt: "2026-01-01T00:00:00.000Z", depth: 0, model: { kind: "scripted", file: "script.json" }, cwd: ".", permissions: {} };
    const stateDir = writeSession(ws.root, "old", meta, { ...initialState("old", "t"), logOffset: 0 });
    const read = await readSessionMeta(stateDir, "old");
    // undefined before: the context share that prunes and compacts was compared as NaN, so a long session never was
    expect(read.model).toEqual({ kind: "scripted", file: "script.json", contextWindow: DEFAULT_CONTEXT_WINDOW, maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS });
    expect(read.pluginFingerprint).toBeUndefined();
  });

  it("usage without lastRequestTokens reads as 0, in the current and the old (version 1) state format", async () => {
    ws = makeWorkspace();
    const meta = {
      createdAt: "2026-01-01T00:00:00.000Z",
      depth: 0,
      model: { kind: "scripted", file: "s.json", contextWindow: 9, maxOutputTokens: 9 },
      cwd: ".",
    };
    const usage = { modelCalls: 1, toolCalls: 0, inputTokens: 5, outputTokens: 5 };
    const stateDir = writeSession(ws.root, "v2", meta, { ...initialState("v2", "t"), usage, logOffset: 0 });
    writeSession(ws.root, "v1", meta, { ...initialState("v1", "t"), usage, version: 1 });
    for (const id of ["v2", "v1"]) expect((await loadSessionState(stateDir, id)).state.usage).toEqual({ ...usage, lastRequestTokens: 0 });
    // what is there stays
    expect((await readSessionMeta(stateDir, "v2")).model).toMatchObject({ contextWindow: 9, maxOutputTokens: 9 });
  });
});
