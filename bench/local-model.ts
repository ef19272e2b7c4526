import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";

/**
 * A minimal OpenAI-compatible streaming server in a child process (so the benchmark process's
 * CPU time is the client's alone): each request gets a `read_file` tool call of `path` until
 * `reset(n)`'s budget is down to its last request, which gets the text "done". `reset(n, k)` makes each
 * tool-calling response ask for `k` calls at once.
 */
export interface LocalModel {
  url: string;
  /** The next `steps` requests: `steps - 1` tool calls, then an answer. */
  reset(steps: number, callsPerStep?: number): Promise<void>;
  close(): Promise<void>;
}

const SERVER = `
const http = require("node:http");
let remaining = 0;
let perStep = 1;
const path = process.argv[1];
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    if (req.url.startsWith("/reset/")) { [remaining, perStep] = req.url.slice(7).split("/").map(Number); res.end("ok"); return; }
    remaining--;
    const base = { id: "c", object: "chat.completion.chunk", created: 0, model: "bench" };
    const delta = remaining > 0
      ? { role: "assistant", tool_calls: Array.from({ length: perStep }, (_, i) => ({ index: i, id: "call_" + remaining + "_" + i, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path }) } })) }
      : { role: "assistant", content: "done" };
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("data: " + JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: null }] }) + "\\n\\n");
    res.write("data: " + JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: remaining > 0 ? "tool_calls" : "stop" }] }) + "\\n\\n");
    res.end("data: [DONE]\\n\\n");
  });
});
// Idle keep-alive sockets stay open: a client's pooled socket must not be closed under it between rounds.
server.keepAliveTimeout = 600000;
server.listen(0, "127.0.0.1", () => process.stdout.write(String(server.address().port) + "\\n"));
`;

/** Starts the server; `path` is the file every tool call asks to read. */
export async function startLocalModel(path: string): Promise<LocalModel> {
  const child: ChildProcess = spawn(process.execPath, ["-e", SERVER, path], { stdio: ["ignore", "pipe", "inherit"] });
  const [first] = (await once(child.stdout!, "data")) as [Buffer];
  const port = Number(first.toString().trim());
  const url = `http://127.0.0.1:${port}`;
  return {
    url: `${url}/v1`,
    async reset(steps: number, callsPerStep = 1) {
      await fetch(`${url}/reset/${steps}/${callsPerStep}`, { method: "POST" }).then((r) => r.text());
    },
    async close() {
      child.kill();
      await once(child, "exit").catch(() => undefined);
    },
  };
}
