import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ttyApprover } from "../../core/cli/tty-approver.js";
import type { ApprovalRequest } from "../../core/types.js";
import { useOpenAIServer } from "../helpers/openai-server.js";
import { KEEL_BIN, ttyInput } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";
import { closeTerminalAfterEach, HAS_TMUX, startTerminal, type Terminal } from "../helpers/tmux.js";

const server = useOpenAIServer();
let ws: TempWorkspace | undefined;
let term: Terminal | undefined;
closeTerminalAfterEach(() => ({ term, ws }));

describe.skipIf(!HAS_TMUX)("keys typed before a question are no answer to it (tmux)", () => {
  it("keel run: a 'y' and Enter typed while the model is asked does not approve the call shown after it", async () => {
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ model: { name: "m", baseUrl: server.baseUrl } });
    // the model takes a moment: the keys below are typed before the call (and its question) exists
    server.push({ delayMs: 3000, toolCalls: [{ name: "bash", arguments: { command: "touch typed-ahead.txt" } }] }, { text: "done" });
    const t = (term = startTerminal([process.execPath, KEEL_BIN, "run", "hi"], { cwd: ws.root, env: ws.env }));
    t.send("y", "Enter");
    await t.waitFor("Allow?");
    t.line("n");
    const screen = await t.waitFor(/user_denied|approved \(user\)/);
    expect(screen).toContain("✗ user_denied");
    expect(screen).not.toContain("approved (user)");
    expect(existsSync(ws.path("typed-ahead.txt"))).toBe(false);
  });
});

describe("the approval prompt and keys typed before it", () => {
  const req: ApprovalRequest = { tool: "bash", resolvedTool: "bash", input: { command: "touch x" }, risk: ["execute"], reason: "r" };

  it("drops a 'y' already typed when the call is shown and reads the answer typed after the question", async () => {
    const input = ttyInput();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (chunk: Buffer) => {
      shown += chunk.toString("utf8");
      if (shown.includes("Allow?")) input.write("n\n");
    });
    input.write("y\n");
    expect(await ttyApprover(input, output).approve(req, AbortSignal.timeout(60_000))).toBe("no");
  });

  it("drops a 'y' typed before the question also when keel gets no CPU for a moment as it shows it (its timer then runs before the read)", async () => {
    // The keys wait in the kernel until keel reads them, as on a terminal: a socket (read in the event loop's poll
    // phase) that starts reading only when keel does (pauseOnConnect), made to look like a terminal.
    const dir = mkdtempSync(join(tmpdir(), "keel-type-ahead-"));
    const server = createServer({ pauseOnConnect: true });
    try {
      await new Promise<void>((resolve) => server.listen(join(dir, "tty"), resolve));
      const keyboard = connect(join(dir, "tty"));
      const [accepted] = (await once(server, "connection")) as [Socket];
      await new Promise<void>((resolve) => keyboard.write("y\n", () => resolve())); // typed before the question
      // A loaded machine: keel gets no CPU for 300 ms right after it starts reading the keys to drop them (after the drop's
      // timer is set), so that the timer's turn comes before the keys are read. Old code: the timer ended the drop, and
      // the question read the 'y' typed before it (yes).
      let starved = false;
      const resume = accepted.resume.bind(accepted);
      const input = Object.assign(accepted, {
        isTTY: true,
        isRaw: false,
        setRawMode(on: boolean) {
          input.isRaw = on;
          return input;
        },
        resume() {
          resume();
          if (!starved) {
            starved = true;
            process.nextTick(() => {
              for (const end = Date.now() + 300; Date.now() < end;);
            });
          }
          return input;
        },
      });
      const output = new PassThrough();
      let shown = "";
      output.on("data", (chunk: Buffer) => {
        shown += chunk.toString("utf8");
        if (shown.includes("Allow?")) keyboard.write("n\n");
      });
      expect(await ttyApprover(input, output).approve(req, AbortSignal.timeout(60_000))).toBe("no");
      keyboard.destroy();
      accepted.destroy();
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a terminal that closes before the question is a no, not a hang", async () => {
    const input = ttyInput();
    input.end();
    expect(await ttyApprover(input, new PassThrough()).approve(req, AbortSignal.timeout(60_000))).toBe("no");
  });
});
