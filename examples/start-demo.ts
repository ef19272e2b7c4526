/**
 * `npm start`: copies `examples/demo/` to a temporary directory (the checkout is never modified),
 * makes it a git repository with a local identity, links keel's `node_modules` so the demo's MCP
 * server can import the SDK, trusts it for this invocation, and runs `keel workflow run tour --yes`
 * with live progress. Prints where the run record is. Exit code: keel's.
 */
import { cpSync, existsSync, mkdtempSync, realpathSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** Where the demo was prepared. */
export interface PreparedDemo {
  /** The temporary demo repository. */
  dir: string;
  /** The keel checkout it came from. */
  keelRoot: string;
}

/** The keel checkout this file belongs to (`dist/examples/start-demo.js` → two levels up). */
export function keelRoot(): string {
  return fileURLToPath(new URL("../../", import.meta.url));
}

/** Copies the demo to a fresh temporary directory, `git init`s and commits it, and links keel's node_modules. */
export async function prepareDemo(root = keelRoot(), base = tmpdir()): Promise<PreparedDemo> {
  const source = join(root, "examples", "demo");
  if (!existsSync(source)) throw new Error(`The demo is missing: ${source} does not exist.`);
  const dir = join(realpathSync(mkdtempSync(join(base, "keel-demo-"))), "demo");
  cpSync(source, dir, {
    recursive: true,
    filter: (src) => !relative(source, src).split(/[\\/]/).includes("node_modules") && !relative(source, src).startsWith(".keel"),
  });
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  const { simpleGit } = await import("simple-git");
  const git = simpleGit({ baseDir: dir });
  await git.init(["-q", "-b", "main"]);
  await git.addConfig("user.name", "keel demo", false, "local");
  await git.addConfig("user.email", "demo@keel.invalid", false, "local");
  await git.addConfig("commit.gpgsign", "false", false, "local");
  await git.add(["-A"]);
  await git.commit("The keel demo repository", undefined, { "--no-verify": null });
  return { dir, keelRoot: root };
}

/** Runs the tour in a prepared demo through the keel CLI (in this process) and returns its exit code. */
export async function runTour(demo: PreparedDemo, extraArgs: string[] = []): Promise<number> {
  const { main } = await import("../bin/cli.js");
  return main(["--cwd", demo.dir, "--trust", "--yes", "workflow", "run", "tour", ...extraArgs]);
}

async function start(): Promise<void> {
  const demo = await prepareDemo();
  process.stdout.write(`keel demo: a fresh copy of examples/demo is at ${demo.dir}\n\n`);
  const code = await runTour(demo, process.argv.slice(2));
  const keel = `node ${join(demo.keelRoot, "bin", "keel.js")} --cwd ${demo.dir}`;
  const record = join(demo.dir, ".keel", "state", "workflow-runs.jsonl");
  process.stdout.write(
    [
      "",
      existsSync(record) ? `The run record is in ${record}` : "No run record was written (keel stopped before the run started; see the message above).",
      "Look around:",
      `  ${keel} workflow runs`,
      `  ${keel} workflow show tour`,
      `  ${keel} tools`,
      `  ${keel} worktree list --discarded`,
      `Remove the demo copy when done: rm -rf ${join(demo.dir, "..")}`,
      "",
    ].join("\n"),
  );
  process.exitCode = code;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  start().catch((error: unknown) => {
    process.stderr.write(`keel demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
