import { execa } from "execa";
import { readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useOpenAIServer } from "../helpers/openai-server.js";
import { runKeel } from "../helpers/run-cli.js";
import { makeWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

/**
 * The README cannot drift: every command its Quickstart, tour and task example show is read from
 * README.md itself (its fenced `sh` blocks) and run for real, in order, against a copy of the demo
 * (`npm start`) and the local OpenAI-compatible server where a model is needed; each must exit 0.
 */
const KEEL_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const README = readFileSync(join(KEEL_ROOT, "README.md"), "utf8");

/** Commands the test deliberately does not run, and why. Anything else it does not know fails the test. */
const NOT_RUN: Record<string, string> = {
  "npm ci": "the suite runs in an installed checkout",
  "npm test": "this is the suite itself",
  "npm link": "changes the global npm prefix; the test runs `keel` itself",
};

/** The text of a `##`/`###` section, up to the next heading of the same or a higher level. */
function readmeSection(markdown: string, heading: string): string {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => /^#{2,4} /.test(l) && l.replace(/^#+ /, "") === heading);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const level = lines[start]!.indexOf(" ");
  let end = lines.findIndex((l, i) => i > start && /^#{1,6} /.test(l) && l.indexOf(" ") <= level);
  if (end < 0) end = lines.length;
  return lines.slice(start + 1, end).join("\n");
}

/** The command lines of a section's ```sh blocks, comments stripped (a `#` outside quotes, at the start or after a space). */
function shellCommands(section: string): string[] {
  const out: string[] = [];
  for (const block of section.matchAll(/^```sh\n([\s\S]*?)^```/gm))
    for (const line of block[1]!.split("\n")) {
      const command = stripComment(line).trim();
      if (command) out.push(command);
    }
  return out;
}

function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

const server = useOpenAIServer();

describe("README commands run as shown", () => {
  let ws: TempWorkspace;
  let demoDir: string | undefined;
  beforeAll(() => {
    ws = makeWorkspace({}, { git: true });
    ws.writeUserConfig({ model: { name: "test-model", baseUrl: server.baseUrl } });
  });
  afterAll(() => {
    ws.cleanup();
    if (demoDir) rmSync(resolve(demoDir, ".."), { recursive: true, force: true });
  });

  const env = () => ws.env;

  /** Runs one README line (parts joined by `&&`) from `cwd`; returns the new working directory. */
  async function runLine(line: string, cwd: string): Promise<string> {
    for (const part of line.split(/\s+&&\s+/)) {
      if (NOT_RUN[part]) continue;
      if (part === "npm start") {
        const r = await execa("npm", ["start", "--silent"], { cwd: KEEL_ROOT, env: env(), reject: false, stdin: "ignore" });
        expect(r.exitCode, `${part}\n${r.stdout}\n${r.stderr}`).toBe(0);
        demoDir = /a fresh copy of examples\/demo is at (\S+)/.exec(String(r.stdout))?.[1];
        expect(demoDir, String(r.stdout)).toBeDefined();
        continue;
      }
      if (part.startsWith("cd ")) {
        const target = part.slice(3).trim();
        // The tour's placeholder for the path `npm start` printed.
        if (/keel-demo-X+/.test(target)) {
          expect(demoDir, "the tour cds into the demo copy: `npm start` must come first").toBeDefined();
          cwd = demoDir!;
        } else cwd = resolve(cwd, target);
        continue;
      }
      if (!part.startsWith("keel "))
        throw new Error(`README shows "${part}", which this test does not know how to run: teach it, or list it in NOT_RUN with a reason.`);
      // bash splits the line into words exactly as a user's shell would; keel then runs in-process (same code as bin/keel.js).
      const words = await execa("bash", ["-c", `printf '%s\\0' ${part.slice("keel ".length)}`], { reject: false, stdin: "ignore" });
      expect(words.exitCode, `bash cannot split: ${part}`).toBe(0);
      const r = await runKeel(String(words.stdout).split("\0").slice(0, -1), { cwd, env: env() });
      expect(r.exitCode, `README command failed: ${part} (in ${cwd})\n${r.stdout}\n${r.stderr}`).toBe(0);
      expect(String(r.stdout), part).not.toMatch(/\{[a-z_]+\}/); // no unrendered template placeholder
    }
    return cwd;
  }

  it("the Quickstart and the two-minute tour, in order", async () => {
    const lines = [...shellCommands(readmeSection(README, "Quickstart")), ...shellCommands(readmeSection(README, "A two-minute tour"))];
    expect(lines).toContain("npm ci && npm start");
    expect(lines.filter((l) => l.startsWith("keel ")).length).toBeGreaterThanOrEqual(8);
    server.push({ text: "This repository is the keel demo." });
    let cwd = ws.root;
    for (const line of lines) cwd = await runLine(line, cwd);
    expect(server.requests.length).toBeGreaterThan(0); // `keel run` reached the model
  });

  it("the task runtime example", async () => {
    const lines = shellCommands(readmeSection(README, "Task runtime"));
    expect(lines.some((l) => l.startsWith("keel task block"))).toBe(true);
    let cwd = ws.root;
    for (const line of lines) cwd = await runLine(line, cwd);
  });
});
