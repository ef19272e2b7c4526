import { afterEach, describe, expect, it } from "vitest";
import { idsOf, modelWorkspace } from "../../helpers/call-ids.js";
import { useOpenAIServer } from "../../helpers/openai-server.js";
import { runKeel, runKeelProcess } from "../../helpers/run-cli.js";
import type { TempWorkspace } from "../../helpers/temp-workspace.js";

// Mistral answers 400 "Tool call id was X but must be a-z, A-Z, 0-9, with a length of 9." to any other id it is sent back.
const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

function workspace() {
  const made = modelWorkspace("mistral-small-latest", server.baseUrl);
  ws = made.ws;
  return made;
}

describe("tool-call ids for servers that accept only Mistral's 9-character form", () => {
  it("an id keel made up (the server sent none) is refused once, then sent in the 9-character form, call and result alike", async () => {
    const { root, env } = workspace();
    const read = { name: "read_file", arguments: { path: "notes.txt" } };
    server.push({ toolCalls: [read], toolCallIds: "omitted" }, { requireShortCallIds: true, text: "They say hello." });
    const before = server.requests.length;
    const r = await runKeelProcess(["--yes", "run", "read notes"], { cwd: root, env });
    // Old code: keel sent its own `call_0_0` back and the run failed with the 400 (exit 1).
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("They say hello.");
    const sent = server.requests.slice(before);
    expect(sent).toHaveLength(3);
    expect(idsOf(sent[1]!).calls[0]).toMatch(/^call_/);
    const last = idsOf(sent[2]!);
    expect(last.calls).toEqual([expect.stringMatching(/^[a-zA-Z0-9]{9}$/)]);
    expect(last.results).toEqual(last.calls);
  });

  it("once the server's own ids show the form, every id goes so at once: the server's unchanged, one keel renamed mapped", async () => {
    const { root, env } = workspace();
    const read = { id: "D681PevKs", name: "read_file", arguments: { path: "notes.txt" } };
    // A server repeating an id within a response: keel renames the second (D681PevKs-2) to keep calls apart.
    server.push({ toolCalls: [read, read] }, { requireShortCallIds: true, text: "Both say hello." });
    const before = server.requests.length;
    const r = await runKeel(["--yes", "--json", "run", "read notes twice"], { cwd: root, env });
    // Old code: `D681PevKs-2` went back and the server answered 400.
    expect(r.json(), r.stderr).toMatchObject({ reason: "answer", text: "Both say hello." });
    const sent = server.requests.slice(before);
    expect(sent).toHaveLength(2);
    const ids = idsOf(sent[1]!);
    expect(ids.calls[0]).toBe("D681PevKs");
    expect(ids.calls[1]).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(ids.calls[1]).not.toBe("D681PevKs");
    expect(ids.results).toEqual(ids.calls);
  });

  it("a server with other ids gets keel's ids as they are", async () => {
    const { root, env } = workspace();
    server.push({ toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }], toolCallIds: "omitted" }, { text: "done" });
    const before = server.requests.length;
    await runKeel(["--yes", "--json", "run", "read"], { cwd: root, env });
    expect(idsOf(server.requests[before + 1]!).calls).toEqual(["call_0_0"]);
  });
});
