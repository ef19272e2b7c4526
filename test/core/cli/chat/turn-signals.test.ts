import { getEventListeners } from "node:events";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentRuntime } from "../../../../core/agent/agent-runtime.js";
import type { CliContext } from "../../../../core/cli/cli-context.js";
import { Chat } from "../../../../core/cli/chat/chat-session.js";
import { startOpenAIServer, type OpenAIServer } from "../../../helpers/openai-server.js";
import { dependantsOf, Retained } from "../../../helpers/retained.js";
import { openTestHost } from "../../../helpers/test-host.js";
import { FAULT, mcpWorkspace, nodeServer } from "../../../runtimes/mcp/mcp-test-kit.js";

let server: OpenAIServer;
beforeAll(async () => {
  server = await startOpenAIServer();
});
afterAll(() => server.close());

/** A chat (as `keel chat` holds one) on a real host and agent runtime; `ctx.signal` lives as long as the chat. */
async function chatOn(retained: Retained) {
  const ws = mcpWorkspace({ f: nodeServer(FAULT, ["ok"]) });
  ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
  const host = await openTestHost(ws, { trust: true, yes: true });
  const real = host.service("agent-runtime")!;
  // every turn's signal is watched (the model client leaves its abort listener on it)
  const runtime: AgentRuntime = Object.assign(Object.create(real) as AgentRuntime, {
    start: (o: Parameters<AgentRuntime["start"]>[0]) => (retained.watch(o.signal), real.start(o)),
    resume: (id: string, o: Parameters<AgentRuntime["resume"]>[1]) => (retained.watch(o.signal), real.resume(id, o)),
  });
  const stopped = new AbortController();
  const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough(), interactive: true, env: ws.env, cwd: ws.root };
  io.stdout.resume();
  const ctx = {
    io,
    signal: stopped.signal,
    globals: () => ({ cwd: ws.root, json: false, trust: false, yes: true }),
    interrupt: () => stopped.abort(),
  } as unknown as CliContext;
  const chat = new Chat(ctx, host, runtime, undefined);
  return {
    chat,
    chatSignal: stopped.signal,
    close: async () => {
      await host.close();
      ws.cleanup();
    },
  };
}

/** Turn signals of `n` chat turns (each calls an MCP tool) still alive afterwards, and what the chat's own signal holds of them. */
async function keptOf(n: number): Promise<{ signals: number; entries: number; listeners: number }> {
  const retained = new Retained();
  const { chat, chatSignal, close } = await chatOn(retained);
  try {
    for (let i = 0; i < n; i++) {
      server.push({ toolCalls: [{ id: `c${i}`, name: "mcp__f__echo", arguments: { message: `hi ${i}` } }] }, { text: `answer ${i}` });
      await chat.turn(`prompt ${i}`);
    }
    expect(chat.turns).toHaveLength(n);
    expect(retained.watched).toBe(n);
    expect(JSON.stringify(server.requests.at(-1))).toContain(`hi ${n - 1}`);
    return { signals: await retained.alive(), entries: dependantsOf(chatSignal), listeners: getEventListeners(chatSignal, "abort").length };
  } finally {
    await close();
  }
}

describe("a chat keeps nothing per turn", () => {
  // Each turn's signal follows Ctrl-C and the chat's own signal, which lives as long as the chat. Made
  // with `AbortSignal.any`, each turn left an entry on the chat's signal for the chat's life (Node 20).
  it("after 40 turns the chat's signal holds nothing of them, and their signals are freed as those of 4 are", async () => {
    const few = await keptOf(4);
    const many = await keptOf(40);
    expect(many.entries).toBe(0);
    expect(many.listeners).toBe(0);
    expect(many.signals).toBeLessThanOrEqual(few.signals + 2);
    expect(many.signals).toBeLessThanOrEqual(3);
  });
});
