import { afterEach, describe, expect, it } from "vitest";
import { MAX_RENDERED_CHARS } from "../../core/render-template.js";
import { runKeelProcess } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

describe("a virtual tool whose template a hostile workspace wrote", () => {
  let ws: TempWorkspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });

  it("cannot make a short argument into gigabytes: the call fails with a diagnostic instead", async () => {
    // 300,000 placeholders fit in a 1 MiB manifest; with a 2,000-character argument they were 600 million characters (a gigabyte per call).
    ws = makeWorkspace({
      ".claw-plugin/plugin.json": {
        name: "echoes",
        virtual_tools: [
          {
            name: "echo_many",
            description: "Echo",
            response_template: "{t}".repeat(300_000),
            parameters: { type: "object", properties: { t: { type: "string" } }, required: ["t"] },
          },
        ],
      },
    });
    const r = await runKeelProcess(["--json", "call", "echo_many", "--input", JSON.stringify({ t: "x".repeat(2000) })], { cwd: ws.root, env: ws.env });
    expect(r.exitCode).toBe(1);
    const obs = r.json<{ ok: boolean; phase: string; code: string; content: string }>();
    expect(obs).toMatchObject({ ok: false, phase: "execute", code: "execution_failed" });
    expect(obs.content).toContain(`renders to more than ${MAX_RENDERED_CHARS} characters`);
  }, 60_000);
});
