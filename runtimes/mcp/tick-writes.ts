import type { Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * Tool calls keel sends to one stdio server in the same tick share one `write` of the server's stdin.
 *
 * Calls that start together (an agent's parallel tool calls, concurrent calls through `keel mcp
 * serve`, the next calls started as earlier ones end) each used to cost one `write` system call,
 * and each write could wake the server's process again. `hold()` corks the stdin stream before a
 * request is sent and uncorks it once this tick's synchronous work and microtasks are done
 * (`process.nextTick`), so the requests sent meanwhile go out in one `writev`: the same bytes, in
 * the same order, a few microseconds later. A lone call is written at the end of its own tick. At 8
 * echo calls in flight this cut keel's CPU per call by ~3 µs and raised its rate against the raw SDK
 * client (whose writes are not batched) from ~0.77× to ~0.88–0.94× (bench/README.md, issue 14).
 */
export class TickWrites {
  private held = false;
  private readonly release = () => {
    this.held = false;
    this.stdin.uncork();
  };

  constructor(private readonly stdin: Writable) {}

  /** Holds the stdin's writes until the end of this tick (once per tick; a closed stream is left alone). */
  hold(): void {
    if (this.held || this.stdin.writableEnded || this.stdin.destroyed) return;
    this.held = true;
    this.stdin.cork();
    process.nextTick(this.release);
  }
}

/**
 * The TickWrites of a started stdio transport, or undefined for other transports. The SDK (1.32)
 * keeps the child process in `StdioClientTransport._process` and writes every message to its stdin;
 * a test pins that, so an SDK that changes it fails the test instead of silently losing the batching.
 */
export function tickWritesOf(transport: Transport): TickWrites | undefined {
  const stdin = (transport as { _process?: { stdin?: unknown } })._process?.stdin;
  return isWritable(stdin) ? new TickWrites(stdin) : undefined;
}

function isWritable(v: unknown): v is Writable {
  return typeof v === "object" && v !== null && typeof (v as Writable).cork === "function" && typeof (v as Writable).uncork === "function";
}
