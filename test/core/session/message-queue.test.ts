import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { drainQueue, peekQueue } from "../../../core/session/message-queue.js";
import { removeTree } from "../../helpers/temp-workspace.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) removeTree(dir);
  dir = undefined;
});

describe("a session's message queue", () => {
  it("sends exactly what it shows: an item whose text is not a string (a committed queue.json's content parts) is neither shown nor sent, and is dropped", async () => {
    dir = mkdtempSync("/var/tmp/keel-queue-");
    const file = join(dir, "queue.json");
    writeFileSync(file, JSON.stringify([{ text: "shown", at: "t" }, { text: [{ type: "text", text: "HIDDEN" }], at: "t" }, null, 7]));
    expect(peekQueue(file).map((q) => q.text)).toEqual(["shown"]);
    const sent = await drainQueue(file);
    expect(sent.map((q) => q.text)).toEqual(["shown"]);
    expect(JSON.stringify(sent)).not.toContain("HIDDEN");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual([]);
  });
});
